import { PLANS } from '../access/plans.ts'
import type { Db } from '../store/database.ts'
import type { Plan } from '../store/schema.ts'
import type { Pruner } from './pruner.ts'
import type { RetentionSettings } from './policy.ts'

/** What an admin sees of retention (GET /v1/retention, `switchyard retention`, the Users page). */
export interface RetentionView {
  plans: Array<{ plan: Plan; max_age_days: number; max_runs: number }>
  event_days: number
  /** The longest time a platform may deliver an event again: events are never kept less. */
  event_days_minimum: number
  step_store_max_bytes: number
  stored: { runs: number; events: number }
  /** This instance's last pass (another instance may have done later ones). */
  last_prune: { at: Date; runs_deleted: number; events_deleted: number } | null
}

export async function retentionView(
  db: Db,
  settings: RetentionSettings,
  eventDaysMinimum: number,
  stepStoreMaxBytes: number,
  pruner: Pruner,
): Promise<RetentionView> {
  // Estimates from the statistics, not count(*): an admin's page must not read a million rows.
  const counts = await db
    .selectFrom('pg_class' as any)
    .select(['relname as name', 'reltuples as rows'] as any)
    .where('relname' as any, 'in', ['runs', 'events'])
    .where('relkind' as any, '=', 'r')
    .execute()
  const estimate = (name: string) =>
    Math.max(0, Math.round(Number((counts as any[]).find((c) => c.name === name)?.rows ?? 0)))
  return {
    plans: PLANS.map((plan) => ({
      plan,
      max_age_days: settings.runs[plan].maxAgeDays,
      max_runs: settings.runs[plan].maxRuns,
    })),
    event_days: settings.eventDays,
    event_days_minimum: eventDaysMinimum,
    step_store_max_bytes: stepStoreMaxBytes,
    stored: { runs: estimate('runs'), events: estimate('events') },
    last_prune: pruner.last
      ? {
          at: pruner.last.at,
          runs_deleted: pruner.last.deleted.runs,
          events_deleted: pruner.last.deleted.events,
        }
      : null,
  }
}
