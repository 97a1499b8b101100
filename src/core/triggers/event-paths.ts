import type { FieldError } from '../errors.ts'
import { partsOf } from '../expressions/render.js'
import { child, nearest, resolve, type Schema } from './event-fields.ts'

/**
 * Checks a mapping's paths against the trigger's event (docs/triggers.md, "Mappings"): a path the
 * event does not have renders nothing, so the run fails (or, for an optional input, runs without it)
 * on every event while the mapping looked saved. Refused when saved instead, with the nearest field.
 *
 * Only paths read from the event's root are checked: inside a filter (`labels[name = "x"]`) or a
 * function's lambda, names belong to another context. Where the schema allows any field (a record,
 * `unknown`), every name below it is accepted.
 */

/** JSONata's syntax tree, loosely (its published type leaves out paths and stages). */
interface Node {
  type: string
  value?: unknown
  steps?: Node[]
  stages?: Node[]
  arguments?: Node[]
  expressions?: Node[]
  lhs?: Node | Node[][]
  rhs?: Node
  condition?: Node
  expression?: Node
  then?: Node
  else?: Node
}

/** The problem with one path from the event's root, or null when the event has it. */
function pathProblem(names: string[], event: Schema): string | null {
  let at = resolve(event, event)
  for (let i = 0; i < names.length; i++) {
    const found = child(at, names[i], event)
    if (found.kind === 'any') return null
    if (found.kind === 'missing') {
      const path = names.slice(0, i + 1).join('.')
      const parent = names.slice(0, i).join('.')
      const guess = nearest(names[i], found.known)
      const fields = found.known.length ? `${parent || 'the event'} has ${found.known.join(', ')}` : ''
      if (guess)
        return `the event has no ${path}: did you mean ${[...names.slice(0, i), guess].join('.')}?${fields ? ` (${fields})` : ''}`
      return `the event has no ${path}${fields ? `; ${fields}` : ''}`
    }
    at = resolve(found.schema, event)
  }
  return null
}

/** The names a path node reads from the event's root, up to the first step that is not a plain name. */
function rootNames(node: Node): string[] {
  const steps = node.steps ?? []
  let i = 0
  // `$.card.name` and `$$.card.name` start at the root too.
  if (steps[0]?.type === 'variable' && (steps[0].value === '' || steps[0].value === '$')) i = 1
  const names: string[] = []
  for (; i < steps.length; i++) {
    const step = steps[i]
    if (step.type !== 'name' || typeof step.value !== 'string') break
    const extra = Object.keys(step).filter((k) => !['type', 'value', 'position', 'stages'].includes(k))
    names.push(step.value)
    if (extra.length) break // a focus or index binding: what follows reads another context
  }
  return names
}

/** Every path read from the root of the expression's input. */
function rootPaths(node: Node | undefined, out: string[][]): void {
  if (!node) return
  switch (node.type) {
    case 'path': {
      const names = rootNames(node)
      if (names.length) out.push(names)
      return
    }
    case 'function':
    case 'partial':
      node.arguments?.forEach((a) => rootPaths(a, out))
      return
    case 'binary':
      rootPaths(node.lhs as Node, out)
      rootPaths(node.rhs, out)
      return
    case 'condition':
      rootPaths(node.condition, out)
      rootPaths(node.then, out)
      rootPaths(node.else, out)
      return
    case 'block':
      node.expressions?.forEach((e) => rootPaths(e, out))
      return
    case 'bind':
      rootPaths(node.rhs, out)
      return
    case 'unary':
      if (node.value === '[') node.expressions?.forEach((e) => rootPaths(e, out))
      else if (node.value === '{' && Array.isArray(node.lhs))
        for (const pair of node.lhs as Node[][]) pair.forEach((e) => rootPaths(e, out))
      else if (node.value === '-') rootPaths(node.expression, out)
      return
    default:
      return // lambdas, literals, variables: nothing read from the event's root
  }
}

/** Every path the mapping's templates read from the event's root (`card.name` as ['card', 'name']). */
export function mappingPaths(mapping: Record<string, string>): string[][] {
  const paths: string[][] = []
  for (const template of Object.values(mapping)) {
    let parts
    try {
      parts = partsOf(template)
    } catch {
      continue
    }
    for (const part of parts) if ('expr' in part) rootPaths(part.expr.ast() as Node, paths)
  }
  return paths
}

/** Whether the mapping reads any of `paths` (`ticket.requester`), or a whole object holding one (`{{ ticket }}`). */
export function mappingReads(mapping: Record<string, string>, paths: readonly string[]): boolean {
  const wanted = paths.map((p) => p.split('.'))
  return mappingPaths(mapping).some((read) =>
    wanted.some(
      (w) =>
        w.slice(0, read.length).every((name, i) => name === read[i]) ||
        read.slice(0, w.length).every((name, i) => name === w[i]),
    ),
  )
}

/** Each mapping field whose template reads a path the trigger's event (its JSON Schema) does not have. */
export function eventPathProblems(mapping: Record<string, string>, event: Schema): FieldError[] {
  const errors: FieldError[] = []
  for (const [name, template] of Object.entries(mapping)) {
    let parts
    try {
      parts = partsOf(template)
    } catch {
      continue // a template that does not parse is refused by checkTemplates, with its own message
    }
    for (const part of parts) {
      if (!('expr' in part)) continue
      const paths: string[][] = []
      rootPaths(part.expr.ast() as Node, paths)
      const problem = paths.map((p) => pathProblem(p, event)).find((p) => p !== null)
      if (problem) {
        errors.push({ field: `mapping.${name}`, message: problem })
        break
      }
    }
  }
  return errors
}
