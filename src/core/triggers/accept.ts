import type { Runs } from '../agents/runs.ts'
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
}

/**
 * Records an event and enqueues its runs, inside the caller's transaction (docs/architecture.md,
 * "Acknowledged only when durable"). The event is deduplicated on its platform id within its source:
 * a second delivery of it, even one arriving at the same moment on another process, inserts nothing
 * and starts nothing. Each run takes its agent's version current at this moment.
 */
export async function acceptEvent(trx: Db, runs: Runs, source: string, candidate: EventCandidate, matches: Match[]): Promise<{ duplicate: boolean; runIds: string[] }> {
  const eventId = newId('evt')
  const inserted = await trx.insertInto('events').values({ id: eventId, source, dedupe_key: candidate.dedupeKey, type: candidate.type })
    .onConflict((oc) => oc.columns(['source', 'dedupe_key']).doNothing()).returning('id').executeTakeFirst()
  if (!inserted) return { duplicate: true, runIds: [] }
  const agentIds = [...new Set(matches.map((m) => m.agentId))]
  const versions = agentIds.length
    ? new Map((await trx.selectFrom('agents').select(['id', 'current_version']).where('id', 'in', agentIds).execute()).map((a) => [a.id, a.current_version]))
    : new Map<string, number>()
  const runIds: string[] = []
  for (const match of matches) {
    const version = versions.get(match.agentId)
    if (version === undefined) continue // the agent was deleted a moment ago
    runIds.push(await runs.insert(trx, {
      userId: match.userId,
      agentId: match.agentId,
      agentVersion: version,
      startedBy: 'trigger',
      subscriptionId: match.subscriptionId,
      eventId,
      event: match.event,
      inputs: match.inputs,
      ...(match.mappingError ? { failed: { code: 'mapping_failed', message: match.mappingError } } : {}),
    }))
  }
  if (matches.length) {
    await trx.updateTable('subscriptions').set({ last_event_at: new Date() }).where('id', 'in', matches.map((m) => m.subscriptionId)).execute()
  }
  return { duplicate: false, runIds }
}
