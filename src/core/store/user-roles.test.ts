import { PGlite } from '@electric-sql/pglite'
import { Kysely, Migrator } from 'kysely'
import { afterAll, expect, it } from 'vitest'
import { migrationsFor } from './migrations.ts'
import { Mutex } from './mutex.ts'
import { PGliteDialect } from './pglite-dialect.ts'

const pglite = new PGlite()
const db = new Kysely<any>({ dialect: new PGliteDialect(pglite, new Mutex()) })
afterAll(async () => {
  await db.destroy()
})

it('an upgraded database makes its oldest user the admin and the others members', async () => {
  const migrator = new Migrator({ db, provider: migrationsFor('pglite') })
  expect((await migrator.migrateTo('0003_connected_with')).error).toBeUndefined()
  await db
    .insertInto('users')
    .values([
      { id: 'usr_b', email: 'b@example.test', name: 'B', plan: 'free', created_at: '2026-02-01T00:00:00Z' },
      { id: 'usr_a', email: 'a@example.test', name: 'A', plan: 'pro', created_at: '2026-01-01T00:00:00Z' },
      { id: 'usr_c', email: 'c@example.test', name: 'C', plan: 'free', created_at: '2026-03-01T00:00:00Z' },
    ])
    .execute()
  expect((await migrator.migrateToLatest()).error).toBeUndefined()
  const roles = await db.selectFrom('users').select(['id', 'role']).orderBy('id').execute()
  expect(roles).toEqual([
    { id: 'usr_a', role: 'admin' },
    { id: 'usr_b', role: 'member' },
    { id: 'usr_c', role: 'member' },
  ])
  await expect(
    db.updateTable('users').set({ role: 'owner' }).where('id', '=', 'usr_b').execute(),
  ).rejects.toThrow(/check/)
})
