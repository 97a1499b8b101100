/**
 * One health verdict per subscription (docs/triggers.md, "Health"): the same words in REST, the CLI
 * and the Triggers tab. Whoever knows something about a subscription adds a fact; this function only
 * weighs them, so a new kind of fact (refused deliveries, skipped events…) needs no change here.
 */

export type HealthVerdict = 'healthy' | 'warning' | 'failing' | 'paused'

/** How much a fact weighs: `paused` means no event can start a run until a person acts. */
export type FactSeverity = 'ok' | 'warning' | 'failing' | 'paused'

export interface HealthFact {
  /** Stable, for programs: `integration_disconnected`, `webhook_missing`, `last_error`… */
  code: string
  severity: FactSeverity
  /** For people: what is wrong and, where there is one, what to do. */
  message: string
}

export interface Health {
  verdict: HealthVerdict
  /** The facts that are not `ok`, the weightiest first. */
  reasons: HealthFact[]
}

const WEIGHT: Record<FactSeverity, number> = { ok: 0, warning: 1, failing: 2, paused: 3 }

/**
 * `paused` outweighs `failing`: a paused subscription receives nothing, so its other troubles are
 * listed as reasons to fix before resuming rather than read as a live failure.
 */
export function healthVerdict(facts: readonly HealthFact[]): Health {
  const reasons = facts
    .filter((f) => f.severity !== 'ok')
    .map((f, i) => ({ f, i }))
    .sort((a, b) => WEIGHT[b.f.severity] - WEIGHT[a.f.severity] || a.i - b.i)
    .map(({ f }) => f)
  const verdict: HealthVerdict = reasons.length === 0 ? 'healthy' : (reasons[0].severity as HealthVerdict)
  return { verdict, reasons }
}
