import { PLANS } from '../access/plans.ts'
import type { Plan } from '../store/schema.ts'

/**
 * How long finished runs are kept, per plan, as workflow tools let operators choose (n8n prunes
 * finished executions past a maximum age, 14 days by default, and past a maximum count, 10,000):
 * a run goes when it is older than `maxAgeDays` or when its owner has more than `maxRuns` newer
 * ones. Queued and running runs are never pruned. Events, the dedupe records, are kept
 * `eventDays`, never less than the longest time a platform may deliver an event again.
 */
export interface RetentionSettings {
  runs: Record<Plan, { maxAgeDays: number; maxRuns: number }>
  eventDays: number
}

// Why these numbers: free keeps a week's worth to debug a trigger with; pro a month, enough to
// compare with last month; enterprise a quarter. Counts bound the store for an agent that fires
// every second. An operator changes any of them (docs/configuration.md).
export const DEFAULT_RETENTION: RetentionSettings = {
  runs: {
    free: { maxAgeDays: 7, maxRuns: 1_000 },
    pro: { maxAgeDays: 30, maxRuns: 10_000 },
    enterprise: { maxAgeDays: 90, maxRuns: 100_000 },
  },
  eventDays: 7,
}

/**
 * `14` (every plan) or `free=7,pro=30` (the plans named; the others keep their defaults). Returns the
 * problem in words when the value cannot be used.
 */
export function perPlan(
  name: string,
  raw: string,
  fallback: Record<Plan, number>,
): { value: Record<Plan, number> } | { problem: string } {
  const value = { ...fallback }
  const whole = (text: string) => (/^\d+$/.test(text) && Number(text) >= 1 ? Number(text) : undefined)
  const all = whole(raw)
  if (all !== undefined)
    return { value: Object.fromEntries(PLANS.map((p) => [p, all])) as Record<Plan, number> }
  for (const part of raw.split(',')) {
    const [plan, n, ...rest] = part.split('=').map((s) => s.trim())
    const count = whole(n ?? '')
    if (!PLANS.includes(plan as Plan) || count === undefined || rest.length)
      return {
        problem: `${name} must be a whole number of at least 1, or plan=number pairs such as "free=7,pro=30" (plans: ${PLANS.join(', ')}), not "${raw}"`,
      }
    value[plan as Plan] = count
  }
  return { value }
}

const DAY_MS = 24 * 60 * 60 * 1000

/** The longest retry window among the platforms, in whole days (rounded up): events are kept at least this long. */
export function eventDaysFloor(retryWindowsMs: number[]): number {
  return Math.max(1, Math.ceil(Math.max(0, ...retryWindowsMs) / DAY_MS))
}
