import { PGlite } from '@electric-sql/pglite'
import { Kysely, Migrator } from 'kysely'
import { afterAll, expect, it } from 'vitest'
import { migrationsFor } from '../store/migrations.ts'
import { Mutex } from '../store/mutex.ts'
import { PGliteDialect } from '../store/pglite-dialect.ts'
import type { AgentDefinition } from './definition.ts'
import { integrationUses } from './integration-uses.ts'

const pglite = new PGlite()
const db = new Kysely<any>({ dialect: new PGliteDialect(pglite, new Mutex()) })
afterAll(async () => {
  await db.destroy()
})

const steps = {
  kind: 'steps',
  steps: [
    { key: 'a', tool: 'trello.get_boards', integration: 'int_1' },
    { key: 'b', tool: 'trello.create_card', integration: 'int_1' },
    { key: 'c', tool: 'zendesk.get_ticket', integration: 'ada' },
  ],
} as AgentDefinition
const model = {
  kind: 'model',
  steps: [],
  tools: [{ tool: 'trello.get_boards', integration: 'ada' }, { tool: 'trello.get_card' }],
} as unknown as AgentDefinition
const external = {
  kind: 'external',
  steps: [],
  external: { url: 'https://agent.example.test', integrations: ['ada', 'int_2'] },
} as unknown as AgentDefinition

it('an upgraded store indexes what the current version of each agent names, as saving would', async () => {
  const migrator = new Migrator({ db, provider: migrationsFor('pglite') })
  expect((await migrator.migrateTo('0017_model_admin')).error).toBeUndefined()
  await db
    .insertInto('users')
    .values({ id: 'usr_a', email: 'a@example.test', name: 'A', plan: 'pro' })
    .execute()
  const agents = [
    ['agt_steps', steps],
    ['agt_model', model],
    ['agt_external', external],
  ] as const
  for (const [id, def] of agents) {
    await db.insertInto('agents').values({ id, user_id: 'usr_a', name: id, current_version: 2 }).execute()
    // An older version names another integration: only the current one counts.
    await db
      .insertInto('agent_versions')
      .values([
        { agent_id: id, version: 1, definition: JSON.stringify({ ...steps, steps: [steps.steps[0]] }) },
        { agent_id: id, version: 2, definition: JSON.stringify(def) },
      ])
      .execute()
  }
  expect((await migrator.migrateToLatest()).error).toBeUndefined()
  const rows = await db
    .selectFrom('agent_integration_uses')
    .select(['agent_id', 'user_id', 'kind', 'platform', 'ref', 'uses'])
    .execute()
  const expected = agents.flatMap(([id, def]) =>
    integrationUses(def).map((u) => ({ agent_id: id, user_id: 'usr_a', ...u })),
  )
  const order = (r: { agent_id: string; kind: string; ref: string }) => `${r.agent_id} ${r.kind} ${r.ref}`
  expect(rows.sort((a, b) => order(a).localeCompare(order(b)))).toEqual(
    expected.sort((a, b) => order(a).localeCompare(order(b))),
  )
  expect(expected).toContainEqual({
    agent_id: 'agt_steps',
    user_id: 'usr_a',
    kind: 'step',
    platform: 'trello',
    ref: 'int_1',
    uses: 2,
  })
  expect(expected).toHaveLength(5)
}, 120_000) // every migration runs on a fresh embedded store
