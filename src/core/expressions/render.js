// @ts-check
import jsonata from 'jsonata'
import { budgetBindings, measured, SizeCapError, tooLarge } from './size-cap.js'

/*
 * How a template is split, compiled and rendered: pure, with no I/O, so the same code runs in the
 * service's thread (for templates that cannot run away, inline-safe.ts) and in the template workers
 * (isolation.ts). It is JavaScript, typed by render.d.ts, because a worker thread starts without the
 * TypeScript loader the service runs under (bin/switchyard.js), and loading it there would triple a
 * worker's start. A template is text with `{{ expression }}` parts; a template that is exactly one
 * part keeps the expression's type (a number stays a number).
 */

/** JSONata's own guardrails: a user's recursive function ends with JSONata's message, before the hard stop. */
const GUARDRAILS = { timeout: 1_000, stack: 200, sequence: 100_000 }
const MAX_CACHED = 2_000

/** @type {Map<string, import('./render.d.ts').Part[]>} */
const compiled = new Map()

/** @param {string} template */
export function partsOf(template) {
  const hit = compiled.get(template)
  if (hit) return hit
  const parts = split(template)
  if (compiled.size >= MAX_CACHED) compiled.delete(/** @type {string} */ (compiled.keys().next().value))
  compiled.set(template, parts)
  return parts
}

/** @param {string} source */
export function compileExpression(source) {
  return measured(jsonata(source, GUARDRAILS))
}

/** @param {string} template */
function split(template) {
  /** @type {import('./render.d.ts').Part[]} */
  const parts = []
  let rest = template
  for (let open = rest.indexOf('{{'); open >= 0; open = rest.indexOf('{{')) {
    if (open > 0) parts.push({ text: rest.slice(0, open) })
    const { expr, source, end } = firstExpression(rest, open + 2)
    parts.push({ expr, source })
    rest = rest.slice(end + 2)
  }
  if (rest) parts.push({ text: rest })
  return parts
}

/**
 * The expression after `{{` ends at the first `}}` that closes a valid expression (an object constructor may hold `}}`).
 * @param {string} text
 * @param {number} start
 */
function firstExpression(text, start) {
  let lastError = 'an expression is not closed with }}'
  for (let end = text.indexOf('}}', start); end >= 0; end = text.indexOf('}}', end + 1)) {
    const source = text.slice(start, end).trim()
    if (!source) throw new Error('{{ }} holds no expression')
    try {
      return { expr: compileExpression(source), source, end }
    } catch (err) {
      lastError = `{{ ${source} }}: ${messageOf(err)}`
    }
  }
  throw new Error(lastError)
}

/** @param {unknown} err */
export function messageOf(err) {
  const e = /** @type {{ message?: string }} */ (err)
  return e?.message ?? String(err)
}

/** @param {string} value */
export function isTemplate(value) {
  return value.includes('{{')
}

/**
 * The size a rendered value takes once stored or sent: characters of its JSON (a string's own length).
 * @param {unknown} value
 */
function sizeOf(value) {
  if (value === undefined || value === null) return 0
  return typeof value === 'string' ? value.length : JSON.stringify(value).length
}

/**
 * Evaluates one expression, stopping as soon as it would build more than its budget (size-cap.js).
 * @param {{ expr: import('jsonata').Expression, source: string }} part
 * @param {unknown} scope
 * @param {import('./size-cap.js').Budget} budget
 */
async function evaluate(part, scope, budget) {
  try {
    return plain(await part.expr.evaluate(scope, budgetBindings(part.expr, budget)))
  } catch (err) {
    if (err instanceof SizeCapError) throw err
    throw new Error(`{{ ${part.source} }}: ${messageOf(err)}`)
  }
}

/**
 * JSONata marks its arrays and builds prototype-less objects: what leaves here is plain JSON.
 * @param {unknown} value
 */
function plain(value) {
  return value !== null && typeof value === 'object' ? JSON.parse(JSON.stringify(value)) : value
}

/** @param {unknown} value */
function asText(value) {
  if (value === undefined || value === null) return ''
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/**
 * Renders one template string; a lone `{{ expression }}` keeps its type, and a missing value is
 * undefined. `maxChars` bounds what it may build; the result comes with its size.
 * @param {string} template
 * @param {unknown} scope
 * @param {number} maxChars
 * @returns {Promise<{ value: unknown, chars: number }>}
 */
export async function renderString(template, scope, maxChars) {
  const parts = partsOf(template)
  if (parts.length === 1 && 'expr' in parts[0]) {
    const value = await evaluate(parts[0], scope, { used: 0, max: maxChars })
    const chars = sizeOf(value)
    if (chars > maxChars) throw new SizeCapError(tooLarge(chars, maxChars))
    return { value, chars }
  }
  let out = ''
  for (const part of parts) {
    out +=
      'text' in part ? part.text : asText(await evaluate(part, scope, { used: out.length, max: maxChars }))
    if (out.length > maxChars) throw new SizeCapError(tooLarge(out.length, maxChars))
  }
  return { value: out, chars: out.length }
}

/**
 * Renders a batch of templates over one scope, in order. `maxChars` bounds the whole batch (a value
 * with a thousand templates cannot build a thousand times the limit). `started(i)` is called before
 * item i, so the thread that waits for a worker knows which field was running when it stops it. A
 * failure at the size cap says so (`sizeCap`), so that the template can be held back (isolation.ts).
 * @param {import('./render.d.ts').Batch} batch
 * @param {(i: number) => void} [started]
 * @returns {Promise<import('./render.d.ts').Outcome[]>}
 */
export async function renderBatch(batch, started) {
  /** @type {import('./render.d.ts').Outcome[]} */
  const outcomes = []
  let left = batch.maxChars
  for (const [i, item] of batch.items.entries()) {
    started?.(i)
    try {
      const { value, chars } = await renderString(item.template, batch.scope, left)
      left -= chars
      outcomes.push({ ok: true, value })
    } catch (err) {
      outcomes.push(
        err instanceof SizeCapError
          ? { ok: false, message: err.message, sizeCap: true }
          : { ok: false, message: messageOf(err) },
      )
    }
  }
  return outcomes
}
