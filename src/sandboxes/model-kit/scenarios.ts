import { parseFaultSpec, type FaultSpec } from '../kit/faults.ts'
import { modelFaultRules } from './model-faults.ts'

/**
 * Scripted turns (docs/sandbox.md, "Scenarios"): a test says what the model answers, turn by
 * turn. A scenario has an id and may be bound to an API key: a request that sends the header
 * `x-sandbox-scenario: <id>` follows that scenario, else one bound to its key, else the default
 * model. Each request takes the next turn; when the turns run out the default model answers.
 */

export interface ScriptedCall {
  name: string
  /** An object is sent as its JSON; a string is sent as it is (broken JSON included). */
  arguments: string
  id?: string
}

export interface ScriptedTurn {
  text: string
  calls: ScriptedCall[]
  /** `length`: the answer stops for length (whatever it holds). */
  finish?: 'stop' | 'length'
  /** A fault this turn has (the kit's fields and the model sandbox's own). */
  fault?: FaultSpec
}

export interface Scenario {
  id: string
  apiKey: string | null
  turns: ScriptedTurn[]
  /** How many turns were taken. */
  taken: number
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string }

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function parseCall(raw: unknown, where: string): Parsed<ScriptedCall> {
  if (!isRecord(raw)) return { ok: false, problem: `${where} must be an object` }
  if (typeof raw.name !== 'string' || !raw.name)
    return { ok: false, problem: `${where}.name must be a non-empty string` }
  const args = raw.arguments ?? {}
  if (typeof args !== 'string' && !isRecord(args))
    return { ok: false, problem: `${where}.arguments must be an object or a string` }
  if (raw.id !== undefined && (typeof raw.id !== 'string' || !raw.id))
    return { ok: false, problem: `${where}.id must be a non-empty string` }
  return {
    ok: true,
    value: { name: raw.name, arguments: typeof args === 'string' ? args : JSON.stringify(args), id: raw.id },
  }
}

export function parseTurn(raw: unknown, where: string): Parsed<ScriptedTurn> {
  if (!isRecord(raw)) return { ok: false, problem: `${where} must be an object` }
  const known = new Set(['text', 'tool_calls', 'finish', 'fault'])
  const unknown = Object.keys(raw).find((key) => !known.has(key))
  if (unknown)
    return { ok: false, problem: `${where}.${unknown} is not a turn field (text, tool_calls, finish, fault)` }
  if (raw.text !== undefined && typeof raw.text !== 'string')
    return { ok: false, problem: `${where}.text must be a string` }
  if (raw.tool_calls !== undefined && !Array.isArray(raw.tool_calls))
    return { ok: false, problem: `${where}.tool_calls must be an array` }
  const calls: ScriptedCall[] = []
  for (const [i, item] of ((raw.tool_calls as unknown[] | undefined) ?? []).entries()) {
    const call = parseCall(item, `${where}.tool_calls[${i}]`)
    if (!call.ok) return call
    calls.push(call.value)
  }
  if (raw.finish !== undefined && raw.finish !== 'stop' && raw.finish !== 'length')
    return { ok: false, problem: `${where}.finish must be "stop" or "length"` }
  let fault: FaultSpec | undefined
  if (raw.fault !== undefined) {
    const parsed = parseFaultSpec(raw.fault, modelFaultRules)
    if (!parsed.ok) return { ok: false, problem: `${where}.fault: ${parsed.problem}` }
    fault = parsed.spec
  }
  const text = (raw.text as string | undefined) ?? ''
  if (!text && calls.length === 0 && !fault)
    return { ok: false, problem: `${where} needs text, tool_calls or a fault` }
  return { ok: true, value: { text, calls, finish: raw.finish as ScriptedTurn['finish'], fault } }
}

export function parseTurns(raw: unknown): Parsed<ScriptedTurn[]> {
  if (!Array.isArray(raw) || raw.length === 0)
    return { ok: false, problem: 'turns must be a non-empty array' }
  const turns: ScriptedTurn[] = []
  for (const [i, item] of raw.entries()) {
    const turn = parseTurn(item, `turns[${i}]`)
    if (!turn.ok) return turn
    turns.push(turn.value)
  }
  return { ok: true, value: turns }
}

/** The scenarios of one model sandbox. */
export class Scenarios {
  private readonly byId = new Map<string, Scenario>()
  private counter = 0

  /** Adds (or replaces, by id) a scenario; a key is bound to one scenario at a time. */
  put(input: { id?: string; apiKey?: string | null; turns: ScriptedTurn[] }): Scenario {
    const id = input.id ?? `scenario_${++this.counter}`
    const apiKey = input.apiKey ?? null
    if (apiKey)
      for (const other of this.byId.values()) if (other.apiKey === apiKey) this.byId.delete(other.id)
    const scenario: Scenario = { id, apiKey, turns: input.turns, taken: 0 }
    this.byId.set(id, scenario)
    return scenario
  }

  get(id: string): Scenario | undefined {
    return this.byId.get(id)
  }

  list(): Scenario[] {
    return [...this.byId.values()]
  }

  remove(id: string): boolean {
    return this.byId.delete(id)
  }

  clear(): void {
    this.byId.clear()
  }

  /** The scenario a request follows: the header's id first, then its key. */
  select(scenarioId: string | undefined, apiKey: string | undefined): Scenario | undefined {
    if (scenarioId) return this.byId.get(scenarioId)
    if (!apiKey) return undefined
    for (const scenario of this.byId.values()) if (scenario.apiKey === apiKey) return scenario
    return undefined
  }

  /** Takes the scenario's next turn, or undefined when none is left. */
  take(scenario: Scenario): ScriptedTurn | undefined {
    const turn = scenario.turns[scenario.taken]
    if (turn) scenario.taken += 1
    return turn
  }
}
