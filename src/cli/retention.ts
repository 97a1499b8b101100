import type { parseArgs as ParseArgs } from 'node:util'
import type { RetentionView } from '../core/retention/view.ts'
import { answer, ask, when } from './output.ts'

export const RETENTION_USAGE = `  retention [--json]                      how long finished runs and events are kept, per plan (admins only)
`

/** `switchyard retention`: the operator's retention settings as the running service applies them. */
export async function retention(args: string[], parseArgs: typeof ParseArgs): Promise<number> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean' } } })
  return answer(values.json ?? false, async () => {
    const view = await ask<RetentionView & { last_prune: { at: string } | null }>('GET', '/v1/retention')
    const lines = [
      'Finished runs are deleted when older than their plan allows or past its count per user:',
      ...view.plans.map(
        (p) =>
          `  ${p.plan.padEnd(10)} ${String(p.max_age_days).padStart(4)} days, the newest ${p.max_runs.toLocaleString('en')} runs`,
      ),
      `Events (the dedupe records): ${view.event_days} days (never less than ${view.event_days_minimum}, the longest a platform retries)`,
      `A step stores at most ${view.step_store_max_bytes.toLocaleString('en')} bytes of its input and of its output; more is cut, with a marker`,
      `Stored now (estimated): ${view.stored.runs.toLocaleString('en')} runs, ${view.stored.events.toLocaleString('en')} events`,
      view.last_prune
        ? `Last pruned by this instance ${when(view.last_prune.at)}: ${view.last_prune.runs_deleted} runs, ${view.last_prune.events_deleted} events`
        : 'Not pruned by this instance yet (every minute, one instance at a time)',
    ]
    return { value: view, lines }
  })
}
