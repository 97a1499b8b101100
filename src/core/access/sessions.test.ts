import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { openStore, type Store } from '../store/database.ts'
import { MAX_SESSIONS_PER_USER, Sessions } from './sessions.ts'
import { Users } from './users.ts'

// Web sessions stay bounded: expired ones are purged, and one user cannot pile up sessions for ever.
let store: Store
beforeAll(async () => {
  store = await openStore({ memory: true })
})
afterAll(async () => {
  await store?.close()
})

const aUser = async () =>
  (await new Users(store.db).create({ email: `s-${Math.random().toString(36).slice(2)}@example.test` })).id
const countOf = async (userId: string) =>
  Number(
    (
      await store.db
        .selectFrom('sessions')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow()
    ).n,
  )

describe('web sessions', () => {
  it('expired sessions of every user are purged on a sign-in', async () => {
    const [idle, active] = [await aUser(), await aUser()]
    const expired = Array.from({ length: 50 }, (_, i) => ({
      id_hash: `expired-${idle}-${i}`,
      id: `ses_expired-${idle}-${i}`,
      user_id: idle,
      expires_at: new Date(Date.now() - 1000),
    }))
    await store.db.insertInto('sessions').values(expired).execute()
    expect(await countOf(idle)).toBe(50)
    await new Sessions(store.db).create(active)
    expect(await countOf(idle)).toBe(0)
    expect(await countOf(active)).toBe(1)
  })

  it(`a user holds at most ${MAX_SESSIONS_PER_USER} sessions: signing in again ends the oldest`, async () => {
    const userId = await aUser()
    const sessions = new Sessions(store.db)
    const created: string[] = []
    // One sign-in a second, on a fake clock for Date only: sign-ins within one millisecond would have
    // no order to keep, and the database's own clock is not faked.
    const start = Date.now() - 60_000
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      for (let i = 0; i < MAX_SESSIONS_PER_USER + 5; i++) {
        vi.setSystemTime(start + i * 1000)
        created.push((await sessions.create(userId)).id)
      }
    } finally {
      vi.useRealTimers()
    }
    expect(await countOf(userId)).toBe(MAX_SESSIONS_PER_USER)
    for (const id of created.slice(0, 5)) expect(await sessions.resolve(id)).toBeUndefined()
    for (const id of created.slice(5)) expect((await sessions.resolve(id))?.id).toBe(userId)
  })
})
