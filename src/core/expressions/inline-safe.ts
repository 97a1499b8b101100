import { partsOf } from './render.js'

/**
 * The templates the service's own thread may evaluate: every expression is a literal or a plain
 * path (`card.name`, `steps.find.output.items[0].id`). Such a path only walks the value it is given,
 * one name or index per step, so its time and its result are bounded by the size of that value, which
 * the edge already bounds; it calls no function, builds nothing and runs no regular expression. Every
 * other template goes to a worker with a hard stop and a memory limit (isolation.ts). Most mappings
 * are plain paths, so the intake keeps its speed (docs/benchmarks.md, "Hostile templates").
 */
export function inlineSafe(template: string): boolean {
  let parts
  try {
    parts = partsOf(template)
  } catch {
    return true // it fails to compile wherever it runs, at once and with the same message
  }
  return parts.every((part) => 'text' in part || safeNode(part.expr.ast() as Node))
}

/** JSONata's syntax tree, loosely: its published type leaves out paths and filter stages. */
type Node = { type: string; steps?: Node[]; stages?: Node[]; expr?: Node }

const PLAIN_KEYS = new Set(['type', 'value', 'position', 'stages'])

function safeNode(node: Node): boolean {
  if (node.type === 'string' || node.type === 'number' || node.type === 'value') return true
  if (node.type !== 'path' || !node.steps) return false
  return Object.keys(node).every((k) => k === 'type' || k === 'steps') && node.steps.every(safeStep)
}

/** A name, optionally indexed by number literals (`items[0]`). */
function safeStep(step: Node): boolean {
  if (step.type !== 'name' || !Object.keys(step).every((k) => PLAIN_KEYS.has(k))) return false
  return (step.stages ?? []).every(
    (stage) =>
      stage.type === 'filter' &&
      stage.expr?.type === 'number' &&
      Object.keys(stage).every((k) => k === 'type' || k === 'expr' || k === 'position'),
  )
}
