import { distance } from 'fastest-levenshtein'

/**
 * A trigger's event, read from its JSON Schema (the catalogue's `eventSchema`): which fields a path
 * names, the nearest field to a mistyped one, and an example template. Shared by the server's mapping
 * checks (event-paths.ts) and the web's placeholders, so both name the same fields.
 */

export type Schema = Record<string, unknown>

const isRecord = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v)

/** A field of the event that a path names, as the schema describes it. */
export type Lookup =
  { kind: 'field'; schema: Schema } | { kind: 'any' } | { kind: 'missing'; known: string[] }

/** Follows `$ref`s into `$defs` and drops `null` from unions, so `Person | null` reads as Person. */
export function resolve(schema: unknown, root: Schema): Schema[] {
  if (!isRecord(schema)) return [{}]
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace(/^#\/\$defs\//, '')
    const defs = isRecord(root.$defs) ? root.$defs : {}
    return resolve(defs[name], root)
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const alts = schema[key]
    if (Array.isArray(alts))
      return alts.flatMap((a) => resolve(a, root)).filter((a) => a.type !== 'null') as Schema[]
  }
  return [schema]
}

/** JSONata maps a path over arrays, so `labels.name` reads each label's name: arrays look through to their items. */
export function throughArrays(schema: Schema, root: Schema): Schema[] {
  if (schema.type === 'array') return resolve(schema.items, root).flatMap((s) => throughArrays(s, root))
  return [schema]
}

export function child(schemas: Schema[], name: string, root: Schema): Lookup {
  const known: string[] = []
  const found: Schema[] = []
  for (const outer of schemas)
    for (const s of throughArrays(outer, root)) {
      const props = isRecord(s.properties) ? s.properties : null
      // No properties named, or more allowed (a record): any name may be there.
      if (!props || (s.additionalProperties !== undefined && s.additionalProperties !== false))
        return { kind: 'any' }
      if (name in props) found.push(...resolve(props[name], root))
      else known.push(...Object.keys(props))
    }
  if (found.length === 0) return { kind: 'missing', known: [...new Set(known)] }
  return { kind: 'field', schema: found.length === 1 ? found[0] : { anyOf: found } }
}

/** The nearest of `known` to `name`: close in spelling, or a word people use for it. */
export function nearest(name: string, known: readonly string[]): string | null {
  let best: { word: string; d: number } | null = null
  for (const word of known) {
    const d = distance(name.toLowerCase(), word.toLowerCase())
    if (!best || d < best.d) best = { word, d }
  }
  // Two edits (a swapped pair of letters) for names of four letters or more, one for shorter ones.
  const longest = best ? Math.max(name.length, best.word.length) : 0
  if (best && best.d <= (longest <= 3 ? 1 : Math.max(2, Math.floor(longest / 3)))) return best.word
  const kin = SYNONYMS.find((group) => group.includes(name.toLowerCase()))
  return kin ? (known.find((k) => kin.includes(k.toLowerCase())) ?? null) : null
}

/** Words for the same thing on different platforms (a Trello card's `name` is a ticket's `subject`). */
const SYNONYMS = [
  ['title', 'name', 'subject', 'summary', 'fullname'],
  ['description', 'desc', 'body', 'text', 'content'],
  ['email', 'mail', 'e-mail'],
  ['url', 'link', 'href', 'shorturl'],
  ['user', 'member', 'requester', 'author', 'actor', 'creator'],
  ['created', 'createdat', 'created_at', 'date', 'time'],
  ['tags', 'labels', 'label', 'tag'],
]

/** A leaf field of the event, with how many fields its parent has (the event's main object has most). */
interface Leaf {
  path: string[]
  siblings: number
}

/** Leaf fields of the event, in the schema's order. */
export function eventLeaves(event: Schema, max = 200): Leaf[] {
  const out: Leaf[] = []
  const walk = (schemas: Schema[], path: string[], siblings: number) => {
    if (out.length >= max || path.length > 4) return
    for (const outer of schemas)
      for (const s of throughArrays(outer, event)) {
        const props = isRecord(s.properties) ? s.properties : null
        if (!props) {
          if (path.length) out.push({ path, siblings })
          return
        }
        const names = Object.keys(props)
        for (const name of names) walk(resolve(props[name], event), [...path, name], names.length)
        return
      }
  }
  walk(resolve(event, event), [], 0)
  return out
}

const COMMON = ['subject', 'name', 'title', 'text', 'body']

/**
 * An example template for an agent input, from the event's own fields (so a Zendesk trigger never
 * suggests a Trello card): the field named like the input, else the name or subject people map most,
 * taken from the event's main object (the one with most fields: the card, not its board).
 */
export function exampleTemplate(event: Schema, input?: string): string {
  const leaves = eventLeaves(event)
  const last = (l: Leaf) => l.path[l.path.length - 1]
  const main = (found: Leaf[]) =>
    found.reduce<Leaf | undefined>((a, b) => (a && a.siblings >= b.siblings ? a : b), undefined)
  const named = input
    ? (main(leaves.filter((l) => last(l).toLowerCase() === input.toLowerCase())) ??
      main(leaves.filter((l) => nearest(input, [last(l)]) !== null)))
    : undefined
  const chosen =
    named ??
    COMMON.map((n) => main(leaves.filter((l) => last(l).toLowerCase() === n))).find(Boolean) ??
    leaves[0]
  return chosen ? `{{ ${chosen.path.join('.')} }}` : '{{ … }}'
}
