import { describe, expect, it } from 'vitest'
import { currentEntry, entriesOf, withEntry } from './picker-text.ts'

describe("a list field's text as a picker reads and writes it", () => {
  it.each([
    ['', [], '', 'a', 'a, '],
    ['bu', ['bu'], 'bu', 'a', 'a, '],
    ['a, ', ['a'], '', 'b', 'a, b, '],
    ['a,b', ['a', 'b'], 'b', 'c', 'a, c, '],
    ['a, do', ['a', 'do'], 'do', 'a', 'a, '],
    [' , a ,, b ', ['a', 'b'], 'b', 'c', 'a, c, '],
  ])('%j: entries %j, typing %j; choosing %j gives %j', (text, entries, typing, chosen, after) => {
    expect(entriesOf(text)).toEqual(entries)
    expect(currentEntry(text)).toBe(typing)
    expect(withEntry(text, chosen)).toBe(after)
  })
})
