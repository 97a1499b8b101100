import { describe, expect, it } from 'vitest'
import { acceptEvents, type Accepted } from '../triggers/accept.ts'
import { openStore } from './database.ts'
import { GroupCommit } from './group-commit.ts'

describe('group commit', () => {
  it('writes requests that arrive together in one write, and answers each with its own result', async () => {
    const writes: number[][] = []
    const commits = new GroupCommit<number, number>(async (items) => {
      writes.push(items)
      await new Promise((resolve) => setTimeout(resolve, 5))
      return items.map((n) => n * 2)
    })
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => commits.submit(i)))
    expect(results).toEqual(Array.from({ length: 50 }, (_, i) => i * 2))
    expect(writes.length).toBeLessThan(5)
    expect(writes.flat()).toEqual(Array.from({ length: 50 }, (_, i) => i))
  })

  it('answers every request of a write that fails for each of them with its failure, and goes on with the next write', async () => {
    let down = true
    const commits = new GroupCommit<string, string>(async (items) => {
      if (down) throw new Error('database down')
      return items
    })
    const first = await Promise.allSettled([commits.submit('a'), commits.submit('b')])
    expect(first.map((r) => r.status)).toEqual(['rejected', 'rejected'])
    down = false
    await expect(commits.submit('c')).resolves.toBe('c')
  })

  it('never writes more than its batch limit at once', async () => {
    const sizes: number[] = []
    const commits = new GroupCommit<number, number>(async (items) => (sizes.push(items.length), items), 10)
    await Promise.all(Array.from({ length: 35 }, (_, i) => commits.submit(i)))
    expect(Math.max(...sizes)).toBeLessThanOrEqual(10)
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(35)
  })

  // Issue 22 §2 and §9 (noisy neighbour): one owner's burst filled every write, and another owner's
  // delivery waited behind all of it.
  it("another owner's request is in the next write, however many of one owner's are waiting, and each owner's are written in order", async () => {
    const writes: string[][] = []
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const commits = new GroupCommit<string, string>(async (items) => {
      writes.push(items)
      if (writes.length === 1) await gate
      return items
    })
    const first = commits.submit('a-first', 'usr_a')
    while (writes.length === 0) await new Promise((resolve) => setImmediate(resolve))
    const burst = Array.from({ length: 1_000 }, (_, i) => commits.submit(`a-${i}`, 'usr_a'))
    const other = commits.submit('b', 'usr_b')
    release()
    await Promise.all([first, ...burst, other])
    expect(writes[0]).toEqual(['a-first'])
    expect(writes[1]).toContain('b')
    expect(writes.flat().filter((item) => item.startsWith('a-') && item !== 'a-first')).toEqual(
      Array.from({ length: 1_000 }, (_, i) => `a-${i}`),
    )
  })

  // Issue 22, section 4: one delivery that fails its statement failed its whole batch of up to 256.
  // Here on the intake's own write, on a real store: a lone UTF-16 surrogate is a value PostgreSQL's
  // JSON refuses, so the statement holding it fails; the deliveries sharing its batch must not.
  it('one item the database refuses fails alone: the others of its batch are written and answered', async () => {
    const store = await openStore({ memory: true })
    try {
      const commits = new GroupCommit<Accepted, { duplicate: boolean }>((items) =>
        acceptEvents(store.db, items),
      )
      const item = (key: string): Accepted => ({
        source: 'webhook:batch-test',
        candidate: { dedupeKey: key, type: 'test', raw: {} },
        matches: [],
      })
      const keys = Array.from({ length: 20 }, (_, i) => (i === 7 ? 'bad \ud800 key' : `good-${i}`))
      const outcomes = await Promise.allSettled(keys.map((key) => commits.submit(item(key))))
      expect(outcomes.map((o) => o.status)).toEqual(keys.map((_, i) => (i === 7 ? 'rejected' : 'fulfilled')))
      const stored = await store.db
        .selectFrom('events')
        .select('dedupe_key')
        .where('source', '=', 'webhook:batch-test')
        .execute()
      expect(stored.map((e) => e.dedupe_key).sort()).toEqual(keys.filter((_, i) => i !== 7).sort())
    } finally {
      await store.close()
    }
  }, 120_000)
})
