import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { platforms } from '../src/platforms/index.ts'

// docs/tools.md, "Input names": every step input and trigger setting is snake_case on every
// platform, nested fields included, so a person and an agent learn one convention. Outputs keep the
// platform's own names and are not checked.
const SNAKE_CASE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/

function fieldNames(schema: z.ZodType): string[] {
  const names: string[] = []
  const visit = (node: any, path: string) => {
    if (!node || typeof node !== 'object') return
    for (const [name, child] of Object.entries<any>(node.properties ?? {})) {
      names.push(`${path}${name}`)
      visit(child, `${path}${name}.`)
    }
    if (node.items) visit(node.items, path)
    for (const alternative of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])])
      visit(alternative, path)
  }
  visit(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }), '')
  return names
}

const declared = platforms.flatMap((p) => [
  ...p.tools.map((t) => ({ what: `step ${t.id}`, schema: t.input as z.ZodType })),
  ...(p.triggers ?? []).map((t) => ({ what: `trigger ${t.id}`, schema: t.config as z.ZodType })),
])

describe('one naming convention for inputs across the catalogue', () => {
  it('covers every step and trigger of every platform', () => {
    expect(declared.length).toBeGreaterThan(40)
    expect(declared.flatMap((d) => fieldNames(d.schema))).toContain('card_id')
  })

  it.each(declared.map((d) => [d.what, d.schema] as const))(
    '%s names its fields in snake_case',
    (_what, schema) => {
      expect(
        fieldNames(schema).filter((name) => !name.split('.').every((part) => SNAKE_CASE.test(part))),
      ).toEqual([])
    },
  )

  it('would catch a camelCase or id-prefixed name', () => {
    expect(
      fieldNames(z.object({ idList: z.string(), settings: z.object({ buildCommand: z.string() }) })).filter(
        (n) => !n.split('.').every((p) => SNAKE_CASE.test(p)),
      ),
    ).toEqual(['idList', 'settings.buildCommand'])
  })
})
