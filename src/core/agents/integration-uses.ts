import type { Db } from '../store/database.ts'
import type { AgentDefinition } from './definition.ts'

/** How an agent names an integration: a step, a model agent's tool, or an external agent's declaration. */
export type UseKind = 'step' | 'tool' | 'external'

export interface IntegrationUse {
  kind: UseKind
  /** The tool's platform; '' for an external agent's declaration, which may name any platform's. */
  platform: string
  /** The id or account name, as the definition writes it. */
  ref: string
  uses: number
}

/** A tool step's platform is the first part of its id (trello.create_card), as migration 0019 reads it. */
const platformOfTool = (tool: string) => tool.split('.')[0] ?? ''

/**
 * The integrations a definition names, counted per kind, platform and reference. A model agent's tool
 * without an integration may use any of the owner's on its platform and names none.
 */
export function integrationUses(def: AgentDefinition): IntegrationUse[] {
  const counted = new Map<string, IntegrationUse>()
  const add = (kind: UseKind, platform: string, ref: string | undefined) => {
    if (!ref) return
    const key = JSON.stringify([kind, platform, ref])
    const found = counted.get(key)
    if (found) found.uses++
    else counted.set(key, { kind, platform, ref, uses: 1 })
  }
  for (const step of def.steps ?? []) add('step', platformOfTool(step.tool), step.integration)
  for (const tool of def.tools ?? []) add('tool', platformOfTool(tool.tool), tool.integration)
  for (const ref of def.external?.integrations ?? []) add('external', '', ref)
  return [...counted.values()]
}

/**
 * Keeps `agent_integration_uses` to the agent's current version, in the transaction that saves it, so
 * that what uses an integration is read by its index (issue 22, §7), never from every definition.
 * Deleting the agent deletes its rows (a foreign key).
 */
export async function saveIntegrationUses(
  trx: Db,
  agentId: string,
  userId: string,
  def: AgentDefinition,
): Promise<void> {
  await trx.deleteFrom('agent_integration_uses').where('agent_id', '=', agentId).execute()
  const uses = integrationUses(def)
  if (uses.length)
    await trx
      .insertInto('agent_integration_uses')
      .values(uses.map((u) => ({ agent_id: agentId, user_id: userId, ...u })))
      .execute()
}

/** Counted uses per kind of one integration, read from the (user_id, ref) index. */
export async function usesOf(
  db: Db,
  userId: string,
  integration: { id: string; account_name: string; platform: string },
): Promise<Record<UseKind, number>> {
  const rows = await db
    .selectFrom('agent_integration_uses')
    .select((eb) => ['kind', eb.fn.sum<string>('uses').as('n')])
    .where('user_id', '=', userId)
    .where('ref', 'in', [integration.id, integration.account_name])
    .where('platform', 'in', [integration.platform, ''])
    .groupBy('kind')
    .execute()
  const out: Record<UseKind, number> = { step: 0, tool: 0, external: 0 }
  for (const row of rows) out[row.kind] = Number(row.n)
  return out
}
