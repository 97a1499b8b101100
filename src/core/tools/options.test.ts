import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { platforms } from '../../platforms/index.ts'
import { ToolRegistry } from './catalog.ts'
import { defineTool, type FieldOption, type OptionsSource } from './define.ts'
import { pageOptions } from './options.ts'

const noOptions: OptionsSource = { list: async () => ({ options: [], next_cursor: null }) }

function registryWith(options: Record<string, OptionsSource>) {
  const tool = defineTool({
    id: 'test.step',
    title: 'Step',
    description: 'A step',
    effect: 'read',
    input: z.object({ board: z.string(), list: z.string() }),
    output: z.object({}),
    options,
    run: async () => ({}),
  })
  return new ToolRegistry([{ ...platforms[0], id: 'test', tools: [tool] }])
}

describe('declared options', () => {
  it('the catalogue says which fields have options and what they depend on', () => {
    const entry = registryWith({ board: noOptions, list: { ...noOptions, dependsOn: ['board'] } }).get(
      'test.step',
    )!.entry
    expect(entry.fieldOptions).toEqual({ board: { dependsOn: [] }, list: { dependsOn: ['board'] } })
  })

  it.each([
    ['a field the step does not take', { card: noOptions }, 'card'],
    [
      'a dependency the step does not take',
      { list: { ...noOptions, dependsOn: ['workspace'] } },
      'workspace',
    ],
  ])('refuses options naming %s', (_name, options, named) => {
    expect(() => registryWith(options)).toThrow(
      new RegExp(`options name ${named}, which is not an input field`),
    )
  })
})

describe('options paged in memory', () => {
  const lists: FieldOption[] = Array.from({ length: 7 }, (_, i) => ({
    value: `id${i}`,
    label: `Board / List ${i}`,
    description: i % 2 ? 'odd' : 'even',
  }))

  it('pages without loss or repetition', () => {
    const first = pageOptions(lists, { q: '', depends: {} }, 3)
    const second = pageOptions(lists, { q: '', depends: {}, cursor: first.next_cursor! }, 3)
    const third = pageOptions(lists, { q: '', depends: {}, cursor: second.next_cursor! }, 3)
    expect([...first.options, ...second.options, ...third.options]).toEqual(lists)
    expect(third.next_cursor).toBeNull()
  })

  it.each([
    ['list 3', ['id3']],
    ['BOARD odd', ['id1', 'id3', 'id5']],
    ['id4', ['id4']],
    ['id', []],
    ['nothing', []],
  ])('q %j finds %j', (q, values) => {
    expect(pageOptions(lists, { q, depends: {} }).options.map((o) => o.value)).toEqual(values)
  })

  it.each(['x', '-1', '1.5', '9999999999'])('refuses the cursor %j, naming it', (cursor) => {
    expect(() => pageOptions(lists, { q: '', depends: {}, cursor })).toThrow(/cursor/)
  })
})
