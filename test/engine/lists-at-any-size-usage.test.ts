import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import type { User } from '../../src/core/access/users.ts'
import { Agents } from '../../src/core/agents/agents.ts'
import { createSealer } from '../../src/core/connections/crypto.ts'
import { Integrations, type IntegrationRow } from '../../src/core/connections/integrations.ts'
import { PLAN_CEILINGS } from '../../src/core/models/budget.ts'
import type { Store } from '../../src/core/store/database.ts'
import { ToolRegistry } from '../../src/core/tools/catalog.ts'
import { TriggerLifecycle } from '../../src/core/triggers/lifecycle.ts'
import { platforms } from '../../src/platforms/index.ts'
import { STORES } from '../helpers/engine.ts'
import { tableReads, type SeededStore } from '../helpers/many-subscriptions.ts'
import { seededStoreForSuite } from '../helpers/seeded-store.ts'

// Issue 22, §1 and §7: the confirmation before an integration is disconnected or deleted says what
// stops ("10 active triggers and 3 agent steps use account7"). Among 1,000 agents it is counted from
// the index of what each agent's current version names (migration 0019), exactly, and without
// reading any agent's definition. An agent is found by name the same way (the CLI's resolveAgent).

describe.each(STORES)("an integration's usage at any size on $name", ({ open }) => {
  let store: Store
  let seed: SeededStore
  seededStoreForSuite(open, 'usage', (seeded) => ({ store, seed } = seeded))

  let agents: Agents
  let user: User
  const usageOf = (id: string, db = store.db) =>
    new TriggerLifecycle(db, ...([] as unknown as [never, never, never, never])).usage(seed.userId, {
      id,
      platform: id.startsWith('big_int') ? 'trello' : 'zendesk',
      account_name: `account${id.split('_').pop()}`,
    } as IntegrationRow)

  beforeAll(async () => {
    // A Zendesk account of the same name as big_int_7: a Zendesk step named so is not a use of it.
    await sql`insert into integrations (id, user_id, platform, external_id, account_name, status)
      values ('zd_7', ${seed.userId}, 'zendesk', 'zd-member7', 'account7', 'connected')`.execute(store.db)
    const integrations = new Integrations(store.db)
    agents = new Agents(store.db, new ToolRegistry(platforms), integrations, createSealer(randomBytes(32)))
    agents.modelConnections = {
      resolve: async () => ({ id: 'mdl_fake', protocol: 'openai' }),
    } as never
    agents.planCeilings = { of: async () => PLAN_CEILINGS.enterprise } as never
    user = { id: seed.userId, plan: 'enterprise' } as User
  })

  it('counts steps, model tools and external declarations naming it, by id or by name, on its platform only', async () => {
    const steps = await agents.create(user, {
      kind: 'steps',
      name: 'uses account7',
      steps: [
        { key: 'by_id', tool: 'trello.get_boards', integration: 'big_int_7' },
        { key: 'by_name', tool: 'trello.get_boards', integration: 'account7' },
        { key: 'other', tool: 'trello.get_boards', integration: 'big_int_8' },
        { key: 'zendesk', tool: 'zendesk.list_tickets', integration: 'account7' },
      ],
    })
    await agents.create(user, {
      kind: 'model',
      name: 'model on account7',
      instructions: 'Look at the boards.',
      model: { connection: 'fake', name: 'gpt-4.1' },
      tools: [
        { tool: 'trello.get_boards', integration: 'account7', name: 'bound' },
        { tool: 'trello.get_boards', name: 'any_account' },
      ],
    })
    const external = await agents.create(user, {
      kind: 'external',
      name: 'external on account7',
      external: { url: 'https://agent.example.test/runs', integrations: ['account7', 'big_int_9'] },
    })

    expect(await usageOf('big_int_7')).toEqual({
      active_triggers: 10,
      agent_steps: 3,
      external_agents: 1,
      paused_triggers: 0,
      summary: '10 active triggers, 3 agent steps and 1 external agent use account7',
    })
    expect(await usageOf('zd_7')).toMatchObject({ agent_steps: 1, external_agents: 1, active_triggers: 0 })

    // Saving a new version counts it instead of the old; deleting an agent takes its uses away.
    await agents.update(user, steps.agent.id, {
      kind: 'steps',
      name: 'uses account7',
      steps: [{ key: 'by_id', tool: 'trello.get_boards', integration: 'big_int_7' }],
    })
    await agents.delete(seed.userId, external.agent.id)
    expect(await usageOf('big_int_7')).toMatchObject({ agent_steps: 2, external_agents: 0 })
    expect(await usageOf('zd_7')).toMatchObject({ agent_steps: 0, external_agents: 0, summary: null })
  })

  it("reads no agent's definition, and only the index rows that name the integration", async () => {
    const reads = await tableReads(store.db, async (trx) => {
      expect(await usageOf('big_int_500', trx)).toMatchObject({ active_triggers: 10, agent_steps: 0 })
    })
    expect(reads.agent_versions?.indexRows ?? 0).toBe(0)
    expect(reads.agent_versions?.seqScans ?? 0).toBe(0)
    expect(reads.agents?.seqScans ?? 0).toBe(0)
    expect({ table: 'agent_integration_uses', ...reads.agent_integration_uses }).toMatchObject({
      seqScans: 0,
    })
  })
  it('finds agents by name, ignoring case, through the (user_id, lower(name)) index (GET /v1/agents?name=)', async () => {
    const reads = await tableReads(store.db, async (trx) => {
      const named = new Agents(trx, new ToolRegistry(platforms), new Integrations(trx), {} as never)
      const { agents: found } = await named.page(seed.userId, { name: 'AGENT 600' })
      expect(found.map((a) => a.id)).toEqual(['big_agt_600'])
      expect((await named.page(seed.userId, { name: 'no such agent' })).agents).toEqual([])
    })
    expect({ table: 'agents', ...reads.agents }).toMatchObject({ seqScans: 0 })
    expect((reads.agents?.indexRows ?? 0) + (reads.agents?.seqRows ?? 0)).toBeLessThanOrEqual(2)
  })
})
