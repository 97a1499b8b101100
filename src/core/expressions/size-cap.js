// @ts-check
import jsonata from 'jsonata'

/*
 * The size cap stops an evaluation as soon as it would build too much, not after (docs/security.md,
 * "Templates"). Checked only on the result, `$replace($pad("",1000000,"a"),"a",$pad("",100,"b"))`
 * first built its whole 100-million-character result in a worker, on every delivery
 * (docs/benchmarks.md, "Hostile templates"). Now the JSONata functions that can multiply what they
 * are given work out the size of their result before building it ($replace with a string pattern,
 * $pad, $join), and every string an expression builds on the way (not one it only reads) is measured
 * as it is made (JSONata's evaluation hook), so a string grown by `&` in a loop stops at the cap too. What is left unmeasured
 * until it is made is one call's output with a regular expression or a function as the replacement;
 * the hard stop and the memory limit bound that (isolation.ts).
 */

/** Why a template failed at the size cap: rendered without the `{{ expression }}:` prefix other failures get. */
export class SizeCapError extends Error {}

/** @param {number} chars @param {number} maxChars */
export function tooLarge(chars, maxChars) {
  return `the result is ${chars.toLocaleString('en')} characters or more; the limit is ${maxChars.toLocaleString('en')}`
}

/**
 * What an evaluation may build: `max` characters, of which the text before its expression in the
 * template has `used` some.
 * @typedef {{ used: number, max: number }} Budget
 */

/** @param {unknown} budget @param {number} chars */
function refuse(budget, chars) {
  if (!budget || typeof budget !== 'object') return
  const { used, max } = /** @type {Budget} */ (budget)
  if (used + chars > max) throw new SizeCapError(tooLarge(used + chars, max))
}

// The binding that holds an evaluation's budget: a name with a space, which no template can write as
// a `$variable`, so no template can read or change it.
const BUDGET = 'switchyard budget'

/** @typedef {{ _jsonata_function: true, implementation: (...args: any[]) => unknown, signature?: unknown }} JsonataFunction */
/** @typedef {{ environment: { lookup(name: string): unknown } }} Focus */

/** JSONata's own definition of a built-in function (with its parsed signature), to wrap. */
async function builtin(/** @type {string} */ name) {
  return /** @type {JsonataFunction} */ (await jsonata(`$${name}`).evaluate({}))
}
const original = {
  pad: await builtin('pad'),
  replace: await builtin('replace'),
  join: await builtin('join'),
}

/**
 * A built-in that first checks the size of what it would build against the evaluation's budget.
 * @param {JsonataFunction} fn
 * @param {(...args: any[]) => number} size what the call would build, in characters (0 when unknown)
 * @returns {JsonataFunction}
 */
function bounded(fn, size) {
  return {
    ...fn,
    implementation(/** @type {any[]} */ ...args) {
      refuse(/** @type {Focus} */ (this).environment.lookup(BUDGET), size(...args))
      return fn.implementation.apply(this, args)
    },
  }
}

/** `$pad` builds its padding from whole copies of `char` before cutting it to the width. */
function padSize(/** @type {unknown} */ str, /** @type {number} */ width, /** @type {unknown} */ char) {
  if (typeof str !== 'string') return 0
  const copies = Math.abs(Math.trunc(width)) - str.length
  if (!(copies > 0)) return 0
  const unit = typeof char === 'string' && char.length > 0 ? char.length : 1
  return str.length + copies * unit
}

/** With a string pattern and a string replacement the result's size is known from the count of matches. */
function replaceSize(
  /** @type {unknown} */ str,
  /** @type {unknown} */ pattern,
  /** @type {unknown} */ replacement,
  /** @type {number | undefined} */ limit,
) {
  if (typeof str !== 'string' || typeof pattern !== 'string' || typeof replacement !== 'string') return 0
  if (!pattern || replacement.length <= pattern.length) return str.length
  const most = limit === undefined ? Infinity : limit
  let count = 0
  for (let at = str.indexOf(pattern); at >= 0 && count < most; at = str.indexOf(pattern, at + pattern.length))
    count++
  return str.length + count * (replacement.length - pattern.length)
}

function joinSize(/** @type {unknown} */ strs, /** @type {unknown} */ separator) {
  if (!Array.isArray(strs)) return 0
  const between = typeof separator === 'string' ? separator.length * Math.max(strs.length - 1, 0) : 0
  return strs.reduce((sum, s) => sum + (typeof s === 'string' ? s.length : 0), between)
}

const BOUNDED = {
  pad: bounded(original.pad, padSize),
  replace: bounded(original.replace, replaceSize),
  join: bounded(original.join, joinSize),
}

/** Expressions that build something (measured): the rest, plain paths and literals, only read. */
const building = new WeakSet()

/**
 * The bindings an evaluation of `expr` runs with: the bounded built-ins, and the budget they and the
 * evaluation hook read; none for an expression that only reads (most mappings, evaluated on the
 * service's thread, where they would cost a little for nothing). A template's own `$pad := …` still
 * shadows them, as any binding would.
 * @param {import('jsonata').Expression} expr
 * @param {Budget} budget
 */
export function budgetBindings(expr, budget) {
  return building.has(expr) ? { ...BOUNDED, [BUDGET]: budget } : undefined
}

/** Whether a syntax tree holds a step that builds (BUILDING), at any depth. @param {unknown} node */
function builds(node) {
  if (Array.isArray(node)) return node.some(builds)
  if (!node || typeof node !== 'object') return false
  const { type } = /** @type {{ type?: unknown }} */ (node)
  if (typeof type === 'string' && BUILDING.has(type)) return true
  return Object.values(node).some(builds)
}

/**
 * The steps that build a value (`&`, a function's result, `~>`), as opposed to reading one from the
 * input or a variable: a large field of an event may be read and cut down (`$substring`) freely.
 */
const BUILDING = new Set(['binary', 'function', 'partial', 'apply'])

/**
 * JSONata's hook after each step of an evaluation: a string built past the budget stops it there.
 * @param {{ type: string }} expr
 * @param {unknown} _input
 * @param {{ lookup(name: string): unknown }} environment
 * @param {unknown} result
 */
function measureStep(expr, _input, environment, result) {
  if (typeof result !== 'string' || !BUILDING.has(expr.type)) return
  refuse(environment.lookup(BUDGET), result.length)
}

/**
 * An expression compiled to measure what it builds (with `budgetBindings` given to each evaluation).
 * @param {import('jsonata').Expression} expr
 */
export function measured(expr) {
  if (!builds(expr.ast())) return expr
  building.add(expr)
  expr.assign(/** @type {any} */ (Symbol.for('jsonata.__evaluate_exit')), measureStep)
  return expr
}
