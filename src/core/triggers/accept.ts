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

export interface Accepted {
  source: string
  candidate: EventCandidate
  matches: Match[]
}

/**
 * Records events and enqueues their runs, inside the caller's transaction (docs/architecture.md,
 * "Acknowledged only when durable"). An event is deduplicated on its platform id within its source:
 * a second delivery of it, in the same batch or arriving at the same moment on another process,
 * inserts nothing and starts nothing. Each run takes its agent's version current at this moment.
 * Returns, per item, whether it was a duplicate and the runs it started.
 */
export async function acceptEvents(trx: Db, runs: Runs, items: Accepted[]): Promise<Array<{ duplicate: boolean; runIds: string[] }>> {
  if (items.length === 0) return []
  const ids = items.map(() => newId('evt'))
  const inserted = await trx.insertInto('events')
    .values(items.map((item, i) => ({ id: ids[i], source: item.source, dedupe_key: item.candidate.dedupeKey, type: item.candidate.type })))
    .onConflict((oc) => oc.columns(['source', 'dedupe_key']).doNothing()).returning('id').execute()
  const fresh = new Set(inserted.map((r) => r.id))
  const agentIds = [...new Set(items.flatMap((item, i) => (fresh.has(ids[i]) ? item.matches.map((m) => m.agentId) : [])))]
  const versions = agentIds.length
    ? new Map((await trx.selectFrom('agents').select(['id', 'current_version']).where('id', 'in', agentIds).execute()).map((a) => [a.id, a.current_version]))
    : new Map<string, number>()
  const newRuns: Parameters<Runs['insertMany']>[1] = []
  const outcome = items.map((item, i) => {
    if (!fresh.has(ids[i])) return { duplicate: true, runIds: [] as string[] }
    const runIds: string[] = []
    for (const match of item.matches) {
      const version = versions.get(match.agentId)
      if (version === undefined) continue // the agent was deleted a moment ago
      const id = newId('run')
      runIds.push(id)
      newRuns.push({
        id,
        userId: match.userId,
        agentId: match.agentId,
        agentVersion: version,
        startedBy: 'trigger',
        subscriptionId: match.subscriptionId,
        eventId: ids[i],
        event: match.event,
        inputs: match.inputs,
        ...(match.mappingError ? { failed: { code: 'mapping_failed', message: match.mappingError } } : {}),
      })
    }
    return { duplicate: false, runIds }
  })
  await runs.insertMany(trx, newRuns)
  const subscriptions = [...new Set(newRuns.map((r) => r.subscriptionId!))]
  if (subscriptions.length) await trx.updateTable('subscriptions').set({ last_event_at: new Date() }).where('id', 'in', subscriptions).execute()
  return outcome
}
