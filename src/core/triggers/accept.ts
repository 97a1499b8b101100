import { sql } from 'kysely'
import { newId } from '../ids.ts'
import type { Db } from '../store/database.ts'
import type { EventCandidate, TriggerEvent } from './define.ts'

/** One subscription an event starts, with its inputs already mapped (or why they could not be). */
export interface Match {
  subscriptionId: string
  userId: string
  agentId: string
  event: TriggerEvent
  inputs: Record<string, unknown>
  mappingError?: string
  /**
   * Why its run may not wait in the queue (the owner's queue is full, agents/queue-cap.ts): the
   * event is kept and the run is recorded as failed with this reason, to be rerun by a person.
   */
  refused?: { code: string; message: string }
}

export interface Accepted {
  source: string
  candidate: EventCandidate
  matches: Match[]
}

/**
 * Records events and enqueues their runs (docs/architecture.md, "Acknowledged only when durable").
 * An event is deduplicated on its platform id within its source: a second delivery of it, in the
 * same batch or arriving at the same moment on another process, inserts nothing and starts nothing.
 * Each run takes its agent's version current at this moment; an agent deleted a moment ago starts
 * nothing. Returns, per item, whether it was a duplicate and the runs it started.
 *
 * One statement does it all, so it is atomic on its own and, inside a caller's transaction (a poll
 * that moves its cursor with its runs), part of that. One statement rather than five is what lets
 * the intake's group commits keep up with thousands of deliveries a second (docs/benchmarks.md):
 * each statement is a round trip, and on the embedded store a turn of its single connection. The
 * statement is the database function `accept_events` (store/migrations.ts, 0007), so that each
 * connection plans it once rather than once per batch.
 */
export async function acceptEvents(
  db: Db,
  items: Accepted[],
): Promise<Array<{ duplicate: boolean; runIds: string[] }>> {
  if (items.length === 0) return []
  const events = items.map((item) => ({
    id: newId('evt'),
    source: item.source,
    dedupe_key: item.candidate.dedupeKey,
    type: item.candidate.type,
  }))
  const runs = items.flatMap((item, i) =>
    item.matches.map((match) => ({
      id: newId('run'),
      event_id: events[i]!.id,
      user_id: match.userId,
      agent_id: match.agentId,
      subscription_id: match.subscriptionId,
      event: match.event,
      inputs: match.inputs,
      error: match.mappingError
        ? { code: 'mapping_failed', message: match.mappingError }
        : (match.refused ?? null),
    })),
  )
  const { rows } = await sql<{ kind: 'event' | 'run'; id: string }>`
    select kind, id from accept_events(${JSON.stringify(events)}::jsonb, ${JSON.stringify(runs)}::jsonb)`.execute(
    db,
  )
  const fresh = new Set(rows.filter((r) => r.kind === 'event').map((r) => r.id))
  const started = new Set(rows.filter((r) => r.kind === 'run').map((r) => r.id))
  const runIdsOf = new Map<string, string[]>()
  for (const run of runs)
    if (started.has(run.id)) runIdsOf.set(run.event_id, [...(runIdsOf.get(run.event_id) ?? []), run.id])
  return events.map((event) =>
    fresh.has(event.id)
      ? { duplicate: false, runIds: runIdsOf.get(event.id) ?? [] }
      : { duplicate: true, runIds: [] },
  )
}
