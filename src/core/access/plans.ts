import { AppError } from '../errors.ts'
import type { Plan } from '../store/schema.ts'

export const PLANS: readonly Plan[] = ['free', 'pro', 'enterprise']

interface PlanLimits {
  /** Integrations a user may hold across all platforms. */
  maxIntegrations: number
}

// Why these numbers: free is enough to try every platform with one account each; pro covers a team
// with an account per environment; enterprise has no cap.
export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: { maxIntegrations: 3 },
  pro: { maxIntegrations: 50 },
  enterprise: { maxIntegrations: Number.POSITIVE_INFINITY },
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
