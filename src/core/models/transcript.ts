import type { StepRow } from '../agents/runs.ts'
import { AppError } from '../errors.ts'
import type { ModelAnswer, ModelToolCall, TranscriptMessage } from './client.ts'

/** What a model call's timeline entry keeps as its output: the answer and what it cost. */
export interface StoredAnswer extends ModelAnswer {
  cost_usd: number | null
  latency_ms: number
  price_table: string
  /** Said back to the model after this answer, when it was not a final answer it could end on. */
  correction?: string
}

export interface StoredUsage {
  model_calls: number
  tool_calls: number
  tokens: number
  cost_usd: number
  wall_clock_s: number
  tool_errors: number
}

/** Errors a tool call's result carries that are not the model's to repair. */
const NOT_REPAIRS = new Set(['denied', 'expired', 'interrupted'])

export interface ReadTranscript {
  messages: TranscriptMessage[]
  /** The last model call that has an answer, and its answer. */
  last: { seq: number; answer: StoredAnswer } | null
  /** A model call caught in flight by a crash (no answer stored): asked again in the same entry. */
  inFlight: StepRow | null
  /** Tool call entries after the last answer, by the model's tool-call id. */
  results: Map<string, StepRow>
  usage: StoredUsage
  nextSeq: number
  /** Each tool call's call, arguments and result, for loop detection. */
  signatures: string[]
}

/**
 * The transcript rebuilt from the run's timeline (docs/model-agents.md, "The run"): each model
 * call's stored answer, then each tool call's stored result, in timeline order. Nothing else is
 * the transcript, so a resumed run sees exactly what the model saw, and never asks again for an
 * answer that is stored.
 */
export function readTranscript(entries: StepRow[], firstMessage: string): ReadTranscript {
  const messages: TranscriptMessage[] = [{ role: 'user', text: firstMessage }]
  const usage: StoredUsage = {
    model_calls: 0,
    tool_calls: 0,
    tokens: 0,
    cost_usd: 0,
    wall_clock_s: 0,
    tool_errors: 0,
  }
  let last: ReadTranscript['last'] = null
  let inFlight: StepRow | null = null
  let results = new Map<string, StepRow>()
  const signatures: string[] = []
  let pendingResults: TranscriptMessage | null = null
  let namesById = new Map<string, string>()
  let activeMs = 0
  for (const e of entries) {
    if (e.finished_at) activeMs += e.finished_at.getTime() - e.started_at.getTime()
    if (e.kind === 'model_call') {
      if (e.status === 'running') {
        inFlight = e
        continue
      }
      if (e.status !== 'succeeded') continue
      pendingResults = null
      const answer = e.output as StoredAnswer
      usage.model_calls++
      usage.tokens += answer.usage.inputTokens + answer.usage.outputTokens
      usage.cost_usd += answer.cost_usd ?? 0
      messages.push({ role: 'assistant', text: answer.text, calls: answer.calls })
      if (answer.correction) {
        usage.tool_errors++
        messages.push({ role: 'user', text: answer.correction })
      }
      last = { seq: e.seq, answer }
      results = new Map()
      namesById = new Map(answer.calls.map((c) => [c.id, c.name]))
    } else if (e.kind === 'tool_call') {
      results.set(e.key, e)
      if (e.status === 'running') continue
      const error = e.error as { code: string; message: string } | null
      if (e.tool_id) usage.tool_calls++
      if (error && !NOT_REPAIRS.has(error.code)) usage.tool_errors++
      const result = {
        callId: e.key,
        name: namesById.get(e.key) ?? e.key,
        output: error ? `Error (${error.code}): ${error.message}` : (e.output ?? null),
        isError: Boolean(error),
      }
      signatures.push(JSON.stringify([result.name, canonical(e.input), canonical(result.output)]))
      if (!pendingResults) {
        pendingResults = { role: 'tool', results: [] }
        messages.push(pendingResults)
      }
      ;(pendingResults as Extract<TranscriptMessage, { role: 'tool' }>).results.push(result)
    }
  }
  usage.wall_clock_s = activeMs / 1000
  const nextSeq = entries.length ? Math.max(...entries.map((e) => e.seq)) + 1 : 0
  return { messages, last, inFlight, results, usage, nextSeq, signatures }
}

/**
 * The invariant before every model call: each tool call has exactly one result, right after the
 * answer that asked for it, and no result answers a call that was not made. A provider refuses
 * anything else with a 400 (docs/model-agents.md); Switchyard refuses to send it instead.
 */
export function assertAnswered(messages: TranscriptMessage[]): void {
  for (const [i, m] of messages.entries()) {
    if (m.role !== 'assistant' || m.calls.length === 0) continue
    const next = messages[i + 1]
    const answered = next?.role === 'tool' ? next.results.map((r) => r.callId) : []
    const asked = m.calls.map((c: ModelToolCall) => c.id)
    const missing = asked.filter((id) => answered.filter((a) => a === id).length !== 1)
    const extra = answered.filter((id) => !asked.includes(id))
    if (missing.length || extra.length)
      throw new AppError(
        'internal',
        `the transcript is not whole (${missing.length ? `no single result for ${missing.join(', ')}` : `results for calls never made: ${extra.join(', ')}`}); the model is not called with it`,
      )
  }
}

/** Each value's canonical text, made once: a run rebuilds its transcript before every call. */
const canonicalTexts = new WeakMap<object, string>()

/**
 * A value's JSON with its objects' keys in one order. A stored entry comes back from jsonb with its
 * keys reordered, while the claim's latest entries are its own values as made (claimed-timeline.ts):
 * the same call and result must read the same either way. Stored values are never changed, so each
 * object's text is kept with it.
 */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null)
  let text = canonicalTexts.get(value)
  if (text === undefined) canonicalTexts.set(value, (text = JSON.stringify(sortedKeys(value))))
  return text
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]),
  )
}
