import type { User } from '../access/users.ts'
import { AppError, invalidInput, notFound } from '../errors.ts'
import type { Db } from '../store/database.ts'
import { parseOrThrow } from '../validation.ts'
import type { AgentDefinition } from '../agents/definition.ts'
import { BUDGET_FIELDS, BudgetInput, budgetOf, type Budget } from './budget.ts'
import type { PlanCeilings } from './plan-ceilings.ts'
import type { ModelRunState } from './runner.ts'

/**
 * "Extend and continue" (docs/model-agents.md, "Budgets"): a run that ran out of budget keeps its
 * transcript; a person adds to its budget and it resumes where it stopped, never past the plan's
 * ceilings, which only an admin sets.
 */
export async function extendRun(
  db: Db,
  user: User,
  runId: string,
  raw: unknown,
  definitionAt: (agentId: string, version: number) => Promise<AgentDefinition>,
  ceilings: PlanCeilings,
): Promise<void> {
  const more = parseOrThrow(BudgetInput, raw ?? {}) as Partial<Budget>
  if (Object.keys(more).length === 0)
    throw invalidInput([{ field: 'model_calls', message: `say what to add: ${BUDGET_FIELDS.join(', ')}` }])
  // Read before the transaction: the embedded store has one connection, which the transaction holds.
  const owned = await db
    .selectFrom('runs')
    .select(['agent_id', 'agent_version'])
    .where('id', '=', runId)
    .where('user_id', '=', user.id)
    .executeTakeFirst()
  if (!owned) throw notFound('run')
  const def = await definitionAt(owned.agent_id, owned.agent_version)
  const ceiling = await ceilings.of(user.plan)
  await db.transaction().execute(async (trx) => {
    const run = await trx
      .selectFrom('runs')
      .select(['id', 'status', 'model_state'])
      .where('id', '=', runId)
      .where('user_id', '=', user.id)
      .forUpdate()
      .executeTakeFirst()
    if (!run) throw notFound('run')
    if (run.status !== 'budget_exhausted')
      throw new AppError(
        'conflict',
        `only a run that ran out of budget is extended; this one is ${run.status}`,
      )
    const state = (run.model_state ?? {
      approvals: {},
      approved_for_run: [],
      extensions: {},
    }) as ModelRunState
    const base = budgetOf(def.budget, ceiling)
    const errors = BUDGET_FIELDS.flatMap((f) => {
      if (more[f] === undefined) return []
      const total = base[f] + (state.extensions[f] ?? 0) + more[f]!
      return total > ceiling[f]
        ? [
            {
              field: f,
              message: `the ${user.plan} plan allows at most ${ceiling[f]} per run; an admin sets the ceilings`,
            },
          ]
        : []
    })
    if (errors.length) throw invalidInput(errors)
    for (const f of BUDGET_FIELDS)
      if (more[f] !== undefined) state.extensions[f] = (state.extensions[f] ?? 0) + more[f]!
    await trx
      .updateTable('runs')
      .set({
        status: 'queued',
        available_at: new Date(),
        finished_at: null,
        result: null,
        error: null,
        model_state: JSON.stringify(state),
      })
      .where('id', '=', runId)
      .execute()
  })
}
