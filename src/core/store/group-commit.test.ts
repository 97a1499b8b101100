import { describe, expect, it } from 'vitest'
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

  it('answers every request of a failed write with its failure, and goes on with the next write', async () => {
    let fail = true
    const commits = new GroupCommit<string, string>(async (items) => {
      if (fail) {
        fail = false
        throw new Error('database down')
      }
      return items
    })
    const first = await Promise.allSettled([commits.submit('a'), commits.submit('b')])
    expect(first.map((r) => r.status)).toEqual(['rejected', 'rejected'])
    await expect(commits.submit('c')).resolves.toBe('c')
  })

  it('never writes more than its batch limit at once', async () => {
    const sizes: number[] = []
    const commits = new GroupCommit<number, number>(async (items) => (sizes.push(items.length), items), 10)
    await Promise.all(Array.from({ length: 35 }, (_, i) => commits.submit(i)))
    expect(Math.max(...sizes)).toBeLessThanOrEqual(10)
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(35)
  })
})
