import type { User } from '../access/users.ts'
import { AppError } from '../errors.ts'
import type { Db } from '../store/database.ts'
import type { Plan } from '../store/schema.ts'
import { TtlCache } from '../ttl-cache.ts'
import { parseOrThrow } from '../validation.ts'
import { BUDGET_FIELDS, BudgetInput, PLAN_CEILINGS, type Budget, type BudgetField } from './budget.ts'

export const PLANS: readonly Plan[] = ['free', 'pro', 'enterprise']

export interface PlanCeilingsView {
  plan: Plan
  /** What holds now: the admin's where set, else the shipped ceiling. */
  ceilings: Budget
  shipped: Budget
  /** The fields an admin set. */
  overridden: BudgetField[]
  updated_at: Date | null
}

/**
 * The per-plan budget ceilings an admin sets over the shipped ones (docs/model-agents.md,
 * "Budget"). An agent's author cannot raise them: saving refuses a budget above them, extending a
 * run stops at them, and a run never spends past them, even after an admin lowered one.
 * Read on every run start and save, so cached briefly; a write here is seen at once in this
 * process, and by other instances within the cache's time limit.
 */
export class PlanCeilings {
  private readonly cache: TtlCache<Partial<Budget>>

  constructor(
    private readonly db: Db,
    ttlMs = 5_000,
  ) {
    this.cache = new TtlCache(ttlMs, 10)
  }

  /** The ceilings that hold for a plan now. */
  async of(plan: Plan): Promise<Budget> {
    const set = await this.overrides(plan)
    return Object.fromEntries(BUDGET_FIELDS.map((f) => [f, set[f] ?? PLAN_CEILINGS[plan][f]])) as Budget
  }

  async list(): Promise<PlanCeilingsView[]> {
    const rows = await this.db.selectFrom('plan_ceilings').selectAll().execute()
    return PLANS.map((plan) => {
      const row = rows.find((r) => r.plan === plan)
      const set = (row?.ceilings ?? {}) as Partial<Budget>
      return {
        plan,
        ceilings: Object.fromEntries(
          BUDGET_FIELDS.map((f) => [f, set[f] ?? PLAN_CEILINGS[plan][f]]),
        ) as Budget,
        shipped: PLAN_CEILINGS[plan],
        overridden: BUDGET_FIELDS.filter((f) => set[f] !== undefined),
        updated_at: row?.updated_at ?? null,
      }
    })
  }

  /** Replaces an admin's ceilings for a plan; fields left out go back to the shipped ones. */
  async set(user: User, plan: string, raw: unknown): Promise<PlanCeilingsView> {
    if (user.role !== 'admin')
      throw new AppError('forbidden', 'only an admin sets the plans’ budget ceilings')
    if (!PLANS.includes(plan as Plan))
      throw new AppError('not_found', `there is no plan ${plan}; the plans are ${PLANS.join(', ')}`)
    const ceilings = parseOrThrow(BudgetInput, raw ?? {}) as Partial<Budget>
    const json = JSON.stringify(ceilings)
    await this.db
      .insertInto('plan_ceilings')
      .values({ plan: plan as Plan, ceilings: json, updated_by: user.id })
      .onConflict((oc) =>
        oc.column('plan').doUpdateSet({ ceilings: json, updated_by: user.id, updated_at: new Date() }),
      )
      .execute()
    this.cache.clear()
    return (await this.list()).find((v) => v.plan === plan)!
  }

  private async overrides(plan: Plan): Promise<Partial<Budget>> {
    const cached = this.cache.get(plan)
    if (cached) return cached
    const row = await this.db
      .selectFrom('plan_ceilings')
      .select('ceilings')
      .where('plan', '=', plan)
      .executeTakeFirst()
    const set = (row?.ceilings ?? {}) as Partial<Budget>
    this.cache.set(plan, set)
    return set
  }
}
