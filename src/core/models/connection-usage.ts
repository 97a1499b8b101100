import { sql } from 'kysely'
import type { User } from '../access/users.ts'
import { notFound } from '../errors.ts'
import type { Db } from '../store/database.ts'

/** At most this many agents are named; the rest are counted. */
const NAMED = 20

export interface ConnectionUsage {
  /** The caller's own model agents whose current version uses the connection. */
  agents: Array<{ id: string; name: string }>
  /** Own agents past the first NAMED. */
  more: number
  /** Other people's agents using it (an admin's shared connection): counted, never named. */
  others: number
  /** What removing it stops, in words, or null when nothing uses it. */
  summary: string | null
}

/**
 * Which model agents use a model connection (docs/model-agents.md, "Model connections"), so the
 * person removing it is told what stops: a run of an agent whose connection is gone fails.
 * Only an agent's current version counts; an older version runs only in runs already made.
 */
export async function connectionUsage(db: Db, user: User, id: string): Promise<ConnectionUsage> {
  const row = await db
    .selectFrom('model_connections')
    .select(['user_id', 'shared'])
    .where('id', '=', id)
    .executeTakeFirst()
  if (!row || (row.user_id !== user.id && !row.shared)) throw notFound('model connection')
  const users = await db
    .selectFrom('agents')
    .innerJoin('agent_versions', (j) =>
      j
        .onRef('agent_versions.agent_id', '=', 'agents.id')
        .onRef('agent_versions.version', '=', 'agents.current_version'),
    )
    .select(['agents.id', 'agents.name', 'agents.user_id'])
    .where(sql<string>`agent_versions.definition->'model'->>'connection'`, '=', id)
    .orderBy('agents.name')
    .execute()
  const own = users.filter((a) => a.user_id === user.id)
  const agents = own.slice(0, NAMED).map((a) => ({ id: a.id, name: a.name }))
  const usage = { agents, more: own.length - agents.length, others: users.length - own.length }
  return { ...usage, summary: summaryOf(usage) }
}

function summaryOf({ agents, more, others }: Omit<ConnectionUsage, 'summary'>): string | null {
  const parts = agents.map((a) => `“${a.name}”`)
  if (more) parts.push(`${more} more of yours`)
  if (others) parts.push(`${others} of other people`)
  if (!parts.length) return null
  const total = agents.length + more + others
  const list = parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`
  return `${total === 1 ? 'The model agent' : 'The model agents'} ${list} ${total === 1 ? 'uses' : 'use'} it: ${total === 1 ? 'its' : 'their'} runs fail until ${total === 1 ? 'it is' : 'they are'} given another connection`
}
