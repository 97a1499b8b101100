// Pure helpers of an agent's Triggers tab: the configuration form's values for a stored config,
// where mapping errors belong, and how the health panel shows the server's verdict.
import type { FieldError } from './api.ts'
import type { SubscriptionHealth } from './agents-api.ts'
import type { FormField, FormValues } from './schema-form.ts'
import { timeAgo } from './run-format.ts'

/** The form's values for a stored object (the inverse of schema-form's coerceValues). */
export function formValuesOf(fields: readonly FormField[], stored: Record<string, unknown>): FormValues {
  const values: FormValues = {}
  for (const f of fields) {
    const v = stored[f.name]
    if (f.kind === 'boolean') {
      values[f.name] = v === true
      continue
    }
    if (v === undefined || v === null) {
      values[f.name] = ''
      continue
    }
    switch (f.kind) {
      case 'enum':
        values[f.name] = JSON.stringify(v)
        break
      case 'string-list':
        values[f.name] = Array.isArray(v) ? v.map(String).join(', ') : String(v)
        break
      case 'json':
        values[f.name] = JSON.stringify(v, null, 2)
        break
      default:
        values[f.name] = typeof v === 'string' ? v : JSON.stringify(v)
    }
  }
  return values
}

/**
 * Sorts mapping errors (from a preview, a test or a save) onto the agent's input variables: the field
 * may be `mapping.subject`, `inputs.subject`, `inputs[0]`-style or the bare name.
 */
export function routeMappingErrors(
  errors: readonly FieldError[] | undefined,
  variables: readonly string[],
): { byVariable: Record<string, string[]>; other: FieldError[] } {
  const byVariable: Record<string, string[]> = {}
  const other: FieldError[] = []
  const known = new Set(variables)
  for (const e of errors ?? []) {
    const rest = e.field.replace(/^(mapping|inputs)(\.|\[|$)/, '').replace(/^["']|["']?\]/g, '')
    const name = rest.split(/[.[]/, 1)[0]
    if (name && known.has(name)) (byVariable[name] ??= []).push(e.message)
    else other.push(e)
  }
  return { byVariable, other }
}

export interface Verdict {
  tone: 'ok' | 'warning' | 'error'
  /** The server's verdict in a word. */
  title: string
  /** The server's reasons, weightiest first; when healthy, what it is doing. */
  lines: string[]
}

const TONES = { healthy: 'ok', warning: 'warning', failing: 'error', paused: 'warning' } as const
const TITLES = { healthy: 'Healthy', warning: 'Warning', failing: 'Failing', paused: 'Paused' } as const

/**
 * Shows the server's one verdict (core/triggers/health-verdict.ts) as it is: its reasons are REST's
 * words, so the Triggers tab, the CLI and REST cannot disagree. Only a healthy trigger's line is
 * said here, from REST's facts, because a healthy verdict has no reasons to show.
 */
export function verdictView(
  health: Pick<SubscriptionHealth, 'verdict' | 'reasons' | 'last_event_at' | 'polled'>,
  platformTitle: string,
  now = Date.now(),
): Verdict {
  const verdict = health.verdict
  const lines =
    verdict !== 'healthy'
      ? health.reasons.map((r) => r.message)
      : health.last_event_at
        ? [`Working: the last event arrived ${timeAgo(health.last_event_at, now)}.`]
        : health.polled
          ? [`Active. Switchyard asks ${platformTitle} for new events regularly; none has come yet.`]
          : [
              `Active and listening. No event has arrived yet: make a change on ${platformTitle} that matches the configuration.`,
            ]
  return { tone: TONES[verdict], title: TITLES[verdict], lines }
}
