import { describe, expect, it } from 'vitest'
import { newId } from './ids.ts'

describe('ids', () => {
  it('sort in the order they were made, across milliseconds, and never repeat', async () => {
    const made: string[] = []
    for (let ms = 0; ms < 5; ms++) {
      for (let i = 0; i < 3; i++) made.push(newId('run'))
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
    const firstOfEachMs = made.filter((_, i) => i % 3 === 0)
    expect([...firstOfEachMs].sort()).toEqual(firstOfEachMs)
    const many = Array.from({ length: 20_000 }, () => newId('evt'))
    expect(new Set(many).size).toBe(many.length)
  })

  it('are the prefix, then digits and lower-case letters for the clock, then URL-safe characters', () => {
    expect(newId('agt')).toMatch(/^agt_[0-9a-z]{9}[A-Za-z0-9_-]{16}$/)
  })
})
