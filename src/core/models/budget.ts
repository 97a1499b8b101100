import { z } from 'zod'
import type { FieldError } from '../errors.ts'
import type { Plan } from '../store/schema.ts'

/**
 * A model agent's budget (docs/model-agents.md, "Budgets"): what one run may spend. It is counted
 * from the run's own timeline (its model calls and tool calls, stored as they end), so it holds
 * across crashes, restarts and approvals; a person may extend a run that ran out.
 */
export const BUDGET_FIELDS = [
  'model_calls',
  'tool_calls',
  'tokens',
  'cost_usd',
  'wall_clock_s',
  'tool_errors',
] as const
export type BudgetField = (typeof BUDGET_FIELDS)[number]
export type Budget = Record<BudgetField, number>

export const DEFAULT_BUDGET: Budget = {
  model_calls: 20,
  tool_calls: 40,
  tokens: 200_000,
  cost_usd: 1,
  wall_clock_s: 600,
  // Tool errors the model is given back to repair (bad arguments, unknown tool, a platform's refusal).
  tool_errors: 5,
}

/**
 * The shipped ceilings per plan, which an admin may override (plan-ceilings.ts) and an agent's
 * author cannot raise: saving refuses a budget above them and a
 * run never spends past them, even after a plan went down. Why these numbers: free is enough to try
 * the sandbox model and a few real calls; pro covers a working agent; enterprise a long one.
 */
export const PLAN_CEILINGS: Record<Plan, Budget> = {
  free: { model_calls: 20, tool_calls: 40, tokens: 200_000, cost_usd: 1, wall_clock_s: 600, tool_errors: 10 },
  pro: {
    model_calls: 100,
    tool_calls: 200,
    tokens: 2_000_000,
    cost_usd: 20,
    wall_clock_s: 3_600,
    tool_errors: 20,
  },
  enterprise: {
    model_calls: 500,
    tool_calls: 1_000,
    tokens: 20_000_000,
    cost_usd: 200,
    wall_clock_s: 86_400,
    tool_errors: 50,
  },
}

const positive = (what: string) =>
  z.number({ error: `give the ${what} as a number` }).positive(`the ${what} must be more than 0`)

export const BudgetInput = z
  .strictObject({
    model_calls: positive('number of model calls').int('give a whole number').optional(),
    tool_calls: positive('number of tool calls').int('give a whole number').optional(),
    tokens: positive('number of tokens').int('give a whole number').optional(),
    cost_usd: positive('cost in US dollars').optional(),
    wall_clock_s: positive('time in seconds').optional(),
    tool_errors: z.number().int('give a whole number').min(0, 'at least 0').optional(),
  })
  .default({})

/** An agent's budget with the defaults filled in, never above the ceilings that hold for its owner. */
export function budgetOf(input: Partial<Budget>, ceiling: Budget): Budget {
  return Object.fromEntries(
    BUDGET_FIELDS.map((f) => [f, Math.min(input[f] ?? DEFAULT_BUDGET[f], ceiling[f])]),
  ) as Budget
}

/** A budget above the owner's plan's ceiling is refused, naming the field and the ceiling. */
export function budgetProblems(
  input: Partial<Budget>,
  plan: Plan,
  ceiling: Budget,
  prefix = 'budget',
): FieldError[] {
  return BUDGET_FIELDS.flatMap((f) =>
    input[f] !== undefined && input[f]! > ceiling[f]
      ? [
          {
            field: `${prefix}.${f}`,
            message: `the ${plan} plan allows at most ${ceiling[f]}; an admin sets the ceilings`,
          },
        ]
      : [],
  )
}
