import { createOpenAI } from '@ai-sdk/openai'
import { generateText, jsonSchema, tool, type ModelMessage } from 'ai'
import { request } from 'undici'
import { modelSandboxBindings } from '../src/sandboxes/index.ts'
import { connectZendesk } from '../test/helpers/connect.ts'
import pg from 'pg'
import { processesCpuSeconds } from './cpu.ts'
import { percentile } from './measure.ts'
import { startServiceStack } from './service-stack.ts'

// Model agents (issue 23, §7): an agent of three model calls and two tool calls (get_ticket, then
// search_tickets, then an answer) on the sandbox model's default rules, against the Zendesk sandbox.
// 1. What Switchyard adds per model call: a run's own working time (started_at → finished_at, both
//    stamped by the service) less its tool calls' time, over three, against one call of the same
//    conversation sent straight to the sandbox model with the same library (the AI SDK), p50.
//    Goal ≤ 2 ms. Runs one at a time, on the embedded store.
// 2. Model-agent runs finished per second, many started at once, on PGlite and, when
//    BENCH_DATABASE_URL names a server, PostgreSQL. Goal ≥ 200/s on PostgreSQL.
// `BENCH_ONLY=model npm run bench` runs only this line.
const LATENCY_RUNS = Number(process.env.BENCH_MODEL_RUNS ?? 150)
const THROUGHPUT_RUNS = Number(process.env.BENCH_MODEL_THROUGHPUT_RUNS ?? 1_000)
const INSTRUCTIONS =
  'Read the ticket with get_ticket, then look for similar ones with search_tickets, then answer.\nticket_id: {{ inputs.ticket_id }}'

const round = (n: number) => Math.round(n * 1000) / 1000

async function call(url: string, apiKey: string, method: string, p: string, body?: unknown): Promise<any> {
  const res = await request(`${url}${p}`, {
    method: method as 'GET',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.body.text()
  if (res.statusCode >= 300)
    throw new Error(`${method} ${p} answered ${res.statusCode}: ${text.slice(0, 300)}`)
  return text ? JSON.parse(text) : undefined
}

interface Stack {
  url: string
  sandboxUrl: string
  apiKey: string
  pid: number | undefined
  sandboxPid: number | undefined
  databaseUrl: string | undefined
  stop(): Promise<void>
}

async function startStack(kind: 'pglite' | 'postgres'): Promise<Stack> {
  return startServiceStack(kind, { name: 'model' })
}

async function prepare(s: Stack): Promise<{ agentId: string; ticketId: number }> {
  const integration = (await connectZendesk({ url: s.url, apiKey: s.apiKey })).integrationId!
  // The sandbox's own rate limit would throttle the benchmark; lift it.
  await request(`${s.sandboxUrl}/zendesk/_control/accounts/acme`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ rate_limit_per_minute: 10_000_000 }),
  }).then((r) => r.body.text())
  const created = await call(s.url, s.apiKey, 'POST', '/v1/tools/zendesk.create_ticket/run', {
    integration,
    input: { subject: 'Printer on fire', description: 'It is on fire' },
  })
  const agent = await call(s.url, s.apiKey, 'POST', '/v1/agents', {
    name: `bench model ${Date.now()}`,
    kind: 'model',
    inputs: [{ name: 'ticket_id', type: 'number', required: true }],
    instructions: INSTRUCTIONS,
    model: { connection: 'Sandbox model', name: 'sandbox-model' },
    tools: [
      { tool: 'zendesk.get_ticket', integration },
      { tool: 'zendesk.search_tickets', integration },
    ],
  })
  return { agentId: agent.id, ticketId: created.output.id }
}

/**
 * How often the latency line asks whether its run has ended, the first time included. The run's time
 * is read from its own stamps, so this only decides how soon the next run starts. Each question is a
 * read of the run and its timeline (five queries) on the service being measured, on PGlite on the
 * very thread that runs the run: asked every 5 ms, the bench's reads outnumbered the run's own
 * queries and the run waited behind them; asked at once after the start, the first question met the
 * run's first model call, whose entry waited behind its reads (about 2 ms a run, in a log of the
 * embedded store's statements).
 */
const LATENCY_POLL_MS = 50
/** How often the throughput line asks whether any of its runs is still open. */
const THROUGHPUT_POLL_MS = 250
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function finished(s: Stack, runId: string): Promise<any> {
  for (;;) {
    await sleep(LATENCY_POLL_MS)
    const run = await call(s.url, s.apiKey, 'GET', `/v1/runs/${runId}`)
    if (!['queued', 'running'].includes(run.status)) {
      if (run.status !== 'succeeded')
        throw new Error(`run ${runId} ended ${run.status}: ${JSON.stringify(run.error)}`)
      return run
    }
  }
}

const startRun = (s: Stack, agentId: string, ticketId: number) =>
  call(s.url, s.apiKey, 'POST', `/v1/agents/${agentId}/runs`, { inputs: { ticket_id: ticketId } })

/** The same three calls a run makes, straight to the sandbox model with the AI SDK, timed each. */
async function directCalls(sandboxUrl: string, run: any, samples: number[]): Promise<void> {
  const binding = modelSandboxBindings(sandboxUrl).get('openai')!
  const model = createOpenAI({ baseURL: binding.baseUrl, apiKey: binding.apiKey }).chat('sandbox-model')
  const offered = run.timeline[0].input.tools as string[]
  const schema = jsonSchema({
    type: 'object',
    properties: { ticket_id: { type: 'number' } },
    additionalProperties: true,
  })
  const tools = Object.fromEntries(
    offered.map((name) => [name, tool({ description: name, inputSchema: schema })]),
  )
  const system = INSTRUCTIONS.replace('{{ inputs.ticket_id }}', String(run.inputs.ticket_id))
  const messages: ModelMessage[] = [{ role: 'user', content: JSON.stringify({ inputs: run.inputs }) }]
  for (let i = 0; i < 3; i++) {
    const started = performance.now()
    const result = await generateText({ model, system, messages, tools, maxRetries: 0 })
    samples.push(performance.now() - started)
    const calls = result.toolCalls
    if (!calls.length) break
    messages.push({
      role: 'assistant',
      content: calls.map((c) => ({
        type: 'tool-call' as const,
        toolCallId: c.toolCallId,
        toolName: c.toolName,
        input: c.input,
      })),
    })
    // The tool's output as the run stored it, so the conversation is the same size.
    const stored = run.timeline.find((e: any) => e.key === calls[0]!.toolCallId)?.output ?? {}
    messages.push({
      role: 'tool',
      content: calls.map((c) => ({
        type: 'tool-result' as const,
        toolCallId: c.toolCallId,
        toolName: c.toolName,
        output: { type: 'json' as const, value: stored },
      })),
    })
  }
}

async function latencyLine(s: Stack, agentId: string, ticketId: number): Promise<Record<string, number>> {
  const perCall: number[] = []
  const direct: number[] = []
  for (let i = 0; i < LATENCY_RUNS + 10; i++) {
    const run = await finished(s, (await startRun(s, agentId, ticketId)).id)
    const models = run.timeline.filter((e: any) => e.kind === 'model_call')
    const tools = run.timeline.filter((e: any) => e.kind === 'tool_call')
    if (models.length !== 3 || tools.length !== 2)
      throw new Error(`expected 3 model calls and 2 tool calls, got ${models.length} and ${tools.length}`)
    const working = new Date(run.finished_at).getTime() - new Date(run.started_at).getTime()
    const toolMs = tools.reduce((sum: number, e: any) => sum + e.duration_ms, 0)
    // Interleaved with the runs, so both sides meet the same moments of this shared machine.
    const directSamples: number[] = []
    await directCalls(s.sandboxUrl, run, directSamples)
    if (i < 10) continue // warm-up
    perCall.push((working - toolMs) / 3)
    direct.push(...directSamples)
  }
  const p50 = percentile(perCall, 50)
  const directP50 = percentile(direct, 50)
  return {
    model_call_switchyard_p50_ms: round(p50),
    model_call_direct_p50_ms: round(directP50),
    model_call_added_p50_ms: round(p50 - directP50),
  }
}

/**
 * CPU seconds used so far by the service's process and, on PostgreSQL, by each backend connected to
 * its scratch database (only those: other processes on this shared machine use the same server).
 */
async function cpuOf(
  s: Stack,
): Promise<{ service: number; sandbox: number; bench: number; backends: Map<number, number> }> {
  const service = s.pid === undefined ? 0 : processesCpuSeconds([s.pid])
  const sandbox = s.sandboxPid === undefined ? 0 : processesCpuSeconds([s.sandboxPid])
  const usage = process.cpuUsage()
  const bench = (usage.user + usage.system) / 1e6
  const backends = new Map<number, number>()
  if (!s.databaseUrl) return { service, sandbox, bench, backends }
  const client = new pg.Client({ connectionString: s.databaseUrl })
  await client.connect()
  try {
    const { rows } = await client.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    )
    for (const { pid } of rows) backends.set(pid, processesCpuSeconds([pid]))
    return { service, sandbox, bench, backends }
  } finally {
    await client.end()
  }
}

/** The database's CPU between two readings: a backend that closed in between takes its share with it. */
function backendsCpuSince(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0
  for (const [pid, seconds] of after) sum += seconds - (before.get(pid) ?? 0)
  return sum
}

/**
 * Runs finished per second, and the CPU each run cost the service's process and the database's: the
 * rate moves by a third with the load of this shared machine, the CPU per run far less, so it is
 * what to compare between changes (docs/benchmarks.md). A database backend that closed during the
 * line takes its CPU with it; the service's pool keeps its connections open while it is busy.
 */
async function throughputLine(
  s: Stack,
  agentId: string,
  ticketId: number,
): Promise<{
  perS: number
  serviceCpuMs: number
  sandboxCpuMs: number
  benchCpuMs: number
  databaseCpuMs: number
}> {
  const ids: string[] = []
  const cpuBefore = await cpuOf(s)
  const startedAt = Date.now()
  // Started 32 at a time: starting is part of what a burst of triggers costs.
  for (let i = 0; i < THROUGHPUT_RUNS; i += 32) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(32, THROUGHPUT_RUNS - i) }, () => startRun(s, agentId, ticketId)),
    )
    ids.push(...batch.map((r) => r.id))
  }
  // The rate is read from the runs' own end times. Meanwhile the bench asks only whether any run of
  // the agent is still open, a few times a second: reading each run back to back, timeline and all,
  // kept the service busy answering the bench while it was being measured.
  const open = async (status: string) =>
    (await call(s.url, s.apiKey, 'GET', `/v1/runs?agent_id=${agentId}&status=${status}&limit=1`)).runs.length
  while ((await open('queued')) + (await open('running')) > 0) await sleep(THROUGHPUT_POLL_MS)
  const cpuAfter = await cpuOf(s)
  const wanted = new Set(ids)
  let lastEnd = 0
  let cursor: string | null = null
  do {
    const page: any = await call(
      s.url,
      s.apiKey,
      'GET',
      `/v1/runs?agent_id=${agentId}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    )
    for (const run of page.runs) {
      if (!wanted.delete(run.id)) continue
      if (run.status !== 'succeeded')
        throw new Error(`run ${run.id} ended ${run.status}: ${JSON.stringify(run.error)}`)
      lastEnd = Math.max(lastEnd, new Date(run.finished_at).getTime())
    }
    cursor = page.next_cursor
  } while (cursor && wanted.size > 0)
  if (wanted.size > 0) throw new Error(`${wanted.size} runs were not found among the agent's runs`)
  return {
    perS: THROUGHPUT_RUNS / ((lastEnd - startedAt) / 1000),
    serviceCpuMs: ((cpuAfter.service - cpuBefore.service) * 1000) / THROUGHPUT_RUNS,
    sandboxCpuMs: ((cpuAfter.sandbox - cpuBefore.sandbox) * 1000) / THROUGHPUT_RUNS,
    benchCpuMs: ((cpuAfter.bench - cpuBefore.bench) * 1000) / THROUGHPUT_RUNS,
    databaseCpuMs: (backendsCpuSince(cpuBefore.backends, cpuAfter.backends) * 1000) / THROUGHPUT_RUNS,
  }
}

export async function modelAgentsBench(): Promise<Record<string, number>> {
  const results: Record<string, number> = {}
  const stores: Array<'pglite' | 'postgres'> = [
    'pglite',
    ...(process.env.BENCH_DATABASE_URL ? ['postgres' as const] : []),
  ]
  for (const kind of stores) {
    const s = await startStack(kind)
    try {
      const { agentId, ticketId } = await prepare(s)
      if (kind === 'pglite') Object.assign(results, await latencyLine(s, agentId, ticketId))
      // One run first on every store, so the providers' modules, which load at a service's first
      // model call (providers/on-first-call.ts), are not counted in the throughput line's CPU per
      // run: on PGlite the latency line has already made that call, on PostgreSQL nothing had.
      else await finished(s, (await startRun(s, agentId, ticketId)).id)
      const throughput = await throughputLine(s, agentId, ticketId)
      results[`model_runs_${kind}_per_s`] = round(throughput.perS)
      results[`model_run_${kind}_service_cpu_ms`] = round(throughput.serviceCpuMs)
      results[`model_run_${kind}_sandbox_cpu_ms`] = round(throughput.sandboxCpuMs)
      results[`model_run_${kind}_bench_cpu_ms`] = round(throughput.benchCpuMs)
      if (kind === 'postgres') results.model_run_postgres_database_cpu_ms = round(throughput.databaseCpuMs)
      console.log(kind, results)
    } finally {
      await s.stop()
    }
  }
  return results
}
