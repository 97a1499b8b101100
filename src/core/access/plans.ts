import { AppError } from '../errors.ts'
import type { Plan } from '../store/schema.ts'

export const PLANS: readonly Plan[] = ['free', 'pro', 'enterprise']

interface PlanLimits {
  /** Integrations a user may hold across all platforms. */
  maxIntegrations: number
  /**
   * Runs that may wait in the queue at once (agents/queue-cap.ts): a runaway trigger fills its own
   * owner's queue, not the database. Started runs do not count, only those waiting to start.
   */
  maxQueuedRuns: number
}

// Why these numbers: free is enough to try every platform with one account each; pro covers a team
// with an account per environment; enterprise has no cap on integrations. Waiting runs: a free
// account's agents rarely have more than a few hundred events waiting; pro absorbs a platform's
// whole backlog replayed at once (Vercel retries for a day); enterprise a migration's import.
export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: { maxIntegrations: 3, maxQueuedRuns: 1_000 },
  pro: { maxIntegrations: 50, maxQueuedRuns: 25_000 },
  enterprise: { maxIntegrations: Number.POSITIVE_INFINITY, maxQueuedRuns: 250_000 },
}

export function planAtLeast(plan: Plan, required: Plan): boolean {
  return PLANS.indexOf(plan) >= PLANS.indexOf(required)
}

export function requirePlan(plan: Plan, required: Plan, what: string): void {
  if (!planAtLeast(plan, required)) {
    throw new AppError('plan_required', `${what} needs the ${required} plan; this account is on ${plan}`, {
      requiredPlan: required,
    })
  }
}
