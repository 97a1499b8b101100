import type { parseArgs as ParseArgs } from 'node:util'
import { answer, ask, duration, resolveAgent, table, when } from './output.ts'

export const RUNS_USAGE = `  runs list [--agent <id|name>] [--status queued|running|waiting_for_approval|succeeded|failed|
            cancelled|budget_exhausted|escalated]
            [--trigger <trigger id>] [--since <ISO time>] [--limit N] [--cursor <c>] [--json]
                                          runs, newest first
  runs get <run id> [--json]              a run and its timeline, one line per step
  runs cancel <run id> [--json]           stop a queued or running run
  runs rerun <run id> [--json]            run the agent's current version again with the same inputs
  runs extend <run id> [--model-calls N] [--tool-calls N] [--tokens N] [--cost-usd X] [--json]
                                          add to the budget of a model run that ran out, and continue it
`

interface Attempt {
  at: string
  outcome: string
  error?: string
  status?: number
  duration_ms?: number
  retry_in_ms?: number
}
interface Entry {
  seq: number
  key: string
  kind: string
  tool_id: string | null
  tool_title: string | null
  integration_name: string | null
  status: string
  summary: { text: string; url?: string; tone?: string } | null
  error: { code: string; message: string } | null
  attempts: Attempt[]
  duration_ms: number | null
  cut?: Array<'input' | 'output'>
  input?: unknown
  approval?: {
    decision: string
    by: { id: string; name: string | null; email: string | null } | null
    at: string
    reason: string | null
    edited: boolean
    model_input?: unknown
    standing_from?: string
  }
}
export interface Run {
  id: string
  agent_id: string
  agent_name: string
  agent_version: number
  status: string
  started_by: string
  trigger_id: string | null
  test: boolean
  rerun_of: string | null
  inputs: unknown
  result: unknown
  error: { code: string; message: string } | null
  created_at: string
  started_at: string | null
  finished_at: string | null
  duration_ms: number | null
  timeline?: Entry[]
}

export const FINISHED = new Set(['succeeded', 'failed', 'cancelled', 'budget_exhausted', 'escalated'])

/** `switchyard runs …`: a run's record and timeline, through the running service's REST API. */
export async function runs(
  sub: string | undefined,
  args: string[],
  parseArgs: typeof ParseArgs,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      agent: { type: 'string' },
      status: { type: 'string' },
      trigger: { type: 'string' },
      since: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
      'model-calls': { type: 'string' },
      'tool-calls': { type: 'string' },
      tokens: { type: 'string' },
      'cost-usd': { type: 'string' },
    },
  })
  const json = values.json ?? false
  const [id] = positionals
  const needId = () => {
    if (!id) throw new Error(`usage: switchyard runs ${sub} <run id>`)
    return encodeURIComponent(id)
  }
  switch (sub) {
    case 'list':
      return answer(json, async () => {
        const query = new URLSearchParams()
        if (values.agent) query.set('agent_id', (await resolveAgent(values.agent)).id)
        for (const [option, param] of [
          ['status', 'status'],
          ['trigger', 'trigger_id'],
          ['since', 'since'],
          ['limit', 'limit'],
          ['cursor', 'cursor'],
        ] as const) {
          if (values[option] !== undefined) query.set(param, values[option]!)
        }
        const page = await ask<{ runs: Run[]; next_cursor: string | null }>(
          'GET',
          `/v1/runs${query.toString() ? `?${query}` : ''}`,
        )
        const lines =
          page.runs.length === 0
            ? ['no runs']
            : table(
                ['CREATED', 'STATUS', 'AGENT', 'STARTED BY', 'DURATION', 'ID', 'WHY IT FAILED'],
                page.runs.map((r) => [
                  when(r.created_at),
                  r.status,
                  `${r.agent_name} v${r.agent_version}`,
                  r.started_by + (r.test ? ' (test)' : ''),
                  duration(r.duration_ms),
                  r.id,
                  r.status === 'failed' && r.error ? failureOf(r.error) : '',
                ]),
              )
        if (page.next_cursor) lines.push(`more: add --cursor ${page.next_cursor}`)
        return { value: page, lines }
      })
    case 'get':
      return answer(json, async () => {
        const run = await ask<Run>('GET', `/v1/runs/${needId()}`)
        return { value: run, lines: describeRun(run) }
      })
    case 'cancel':
      return answer(json, async () => {
        const run = await ask<Run>('POST', `/v1/runs/${needId()}/cancel`)
        return {
          value: run,
          lines: [
            `Run ${run.id} of ${run.agent_name}: ${run.status}${run.status === 'running' ? ' (it stops before its next step)' : ''}`,
          ],
        }
      })
    case 'rerun':
      return answer(json, async () => {
        const run = await ask<Run>('POST', `/v1/runs/${needId()}/rerun`)
        return {
          value: run,
          lines: [
            `Started run ${run.id} of ${run.agent_name} v${run.agent_version} (${run.status}), a rerun of ${id}`,
          ],
        }
      })
    case 'extend':
      return answer(json, async () => {
        const more: Record<string, number> = {}
        for (const [option, field] of [
          ['model-calls', 'model_calls'],
          ['tool-calls', 'tool_calls'],
          ['tokens', 'tokens'],
          ['cost-usd', 'cost_usd'],
        ] as const)
          if (values[option] !== undefined) more[field] = Number(values[option])
        const run = await ask<Run>('POST', `/v1/runs/${needId()}/extend`, more)
        return { value: run, lines: [`Run ${run.id} extended: ${run.status}`] }
      })
    default:
      throw new Error('usage: switchyard runs list|get|cancel|rerun|extend …')
  }
}

/** A run as lines: its outcome, then one line per timeline entry, with attempts when there were several. */
export function describeRun(run: Run): string[] {
  const lines = [
    `Run ${run.id}: ${run.status}${run.test ? ' (test)' : ''}`,
    `  agent      ${run.agent_name} v${run.agent_version} (${run.agent_id})`,
    `  started by ${run.started_by}${run.rerun_of ? `, rerun of ${run.rerun_of}` : ''}${run.trigger_id ? `, trigger ${run.trigger_id}` : ''}`,
    `  created    ${when(run.created_at)}${run.finished_at ? `, finished ${when(run.finished_at)} (${duration(run.duration_ms)})` : ''}`,
  ]
  if (run.error) lines.push(`  error      ${run.error.message} [${run.error.code}]`)
  const timeline = run.timeline ?? []
  if (timeline.length) lines.push('', 'Timeline:')
  for (const e of timeline) {
    const what =
      e.kind === 'delivery'
        ? 'delivery to the agent'
        : [e.tool_title ?? e.tool_id ?? e.kind, e.integration_name].filter(Boolean).join(' on ')
    const detail = e.error
      ? `error: ${e.error.message}`
      : e.summary
        ? `${e.summary.tone === 'error' ? 'Error: ' : ''}${e.summary.text}${e.summary.url ? ` <${e.summary.url}>` : ''}`
        : ''
    lines.push(
      `  ${String(e.seq + 1).padStart(2)}. ${e.key}  ${e.status.padEnd(9)}  ${what}  ${duration(e.duration_ms)}${detail ? `  ${detail}` : ''}`,
    )
    if (e.approval) lines.push(...approvalLines(e.approval, e.input))
    if (e.cut?.length)
      lines.push(
        `        ${e.cut.join(' and ')} stored cut (too large to keep whole; see --json for the marker where it was cut)`,
      )
    if (e.attempts.length > 1) {
      e.attempts.forEach((a, i) =>
        lines.push(
          `        attempt ${i + 1} ${a.outcome}${a.duration_ms !== undefined ? ` after ${duration(a.duration_ms)}` : ''}` +
            `${a.status ? ` (HTTP ${a.status})` : ''}${a.error ? `: ${a.error}` : ''}${a.retry_in_ms !== undefined ? `; retried in ${duration(a.retry_in_ms)}` : ''}`,
        ),
      )
    }
  }
  if (run.status === 'succeeded' && run.result !== null && run.result !== undefined)
    lines.push('', `Result: ${JSON.stringify(run.result)}`)
  return lines
}

const DECIDED: Record<string, string> = {
  approve: 'approved',
  approve_for_run: 'approved for the rest of the run',
  deny: 'denied',
}

/** Who let a model's tool call run or stopped it, and when (docs/model-agents.md, "Approvals"). */
function approvalLines(a: NonNullable<Entry['approval']>, ran: unknown): string[] {
  if (a.decision === 'expired' || !a.by) return [`        nobody decided by ${when(a.at)}: treated as denied`]
  const who = [a.by.name, a.by.email ? `<${a.by.email}>` : null].filter(Boolean).join(' ') || a.by.id
  if (a.standing_from)
    return [
      `        ran under the standing approval ${who} gave at ${when(a.at)} (for the rest of the run, on ${a.standing_from})`,
    ]
  const lines = [
    `        ${DECIDED[a.decision] ?? a.decision}${a.edited ? ' with edited input' : ''} by ${who} at ${when(a.at)}${a.reason ? `: ${a.reason}` : ''}`,
  ]
  if (a.edited)
    lines.push(
      `        the model asked for ${JSON.stringify(a.model_input)}; it ran with ${JSON.stringify(ran)}`,
    )
  return lines
}

/** Why a run failed, on its list row (issue 22, §5): its code and message, on one line and shortened. */
function failureOf(error: { code: string; message: string }): string {
  const text = error.message.replace(/\s+/g, ' ').trim()
  return `${error.code}: ${text.length > 120 ? `${text.slice(0, 119)}…` : text}`
}
