import { randomBytes } from 'node:crypto'
import http from 'node:http'
import { Agent, request } from 'undici'
import { signature } from '../src/platforms/trello/webhooks.ts'
import { SEED } from '../src/sandboxes/trello/seed.ts'
import { connectTrelloOAuth } from '../test/helpers/connect-trello.ts'
import { percentile } from './measure.ts'

// The event engine's speed (issue 10 §7): deliveries per second acknowledged durably by the webhook
// intake, and the time from a delivery's arrival to its run starting, at a steady 200 deliveries
// per second. The baseline, measured in the same run, is a bare Node HTTP server that reads the body
// and answers 200 without verifying or storing anything: the floor of any intake on this machine.
const INTAKE_CONCURRENCY = 32
const INTAKE_MS = Number(process.env.BENCH_INTAKE_MS ?? 8_000)
const LATENCY_RATE_PER_S = 200
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 10_000)

const dispatcher = new Agent({ connections: 64, keepAliveTimeout: 30_000 })

interface Hook { address: string; boardId: string; listId: string; memberId: string }

async function call(url: string, apiKey: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await request(`${url}${path}`, {
    method: method as 'GET', dispatcher,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.body.text()
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`)
  return text ? JSON.parse(text) : undefined
}

/** An agent whose one step is skipped (its condition is false): runs start and end without a platform call. */
async function setUp(url: string, apiKey: string, sandboxUrl: string): Promise<Hook> {
  const integration = (await connectTrelloOAuth({ url, apiKey })).integrationId!
  const boards = await call(url, apiKey, 'POST', '/v1/tools/trello.get_boards/run', { integration, input: {} })
  const target = boards.output.boards[0]
  const agent = await call(url, apiKey, 'POST', '/v1/agents', {
    name: `bench ${Date.now()}`,
    inputs: [{ name: 'title', type: 'string' }],
    kind: 'steps',
    steps: [{ key: 'noop', tool: 'trello.get_boards', integration, input: {}, condition: 'false' }],
  })
  const sub = await call(url, apiKey, 'POST', `/v1/agents/${agent.id}/subscriptions`, {
    trigger: 'trello.new_card', integration, config: { idBoards: [target.id] }, mapping: { title: '{{ card.name }}' },
  })
  await call(url, apiKey, 'POST', `/v1/subscriptions/${sub.id}/activate`)
  const hooks = await (await fetch(`${sandboxUrl}/trello/_control/webhooks`)).json() as { webhooks: Array<{ callbackURL: string; idModel: string }> }
  const hook = hooks.webhooks.find((w) => w.idModel === target.id && w.callbackURL.startsWith(url))
  if (!hook) throw new Error('the subscription made no webhook at the sandbox')
  return { address: hook.callbackURL, boardId: target.id, listId: target.lists[0].id, memberId: SEED.members.grace.id }
}

/** A createCard delivery as the sandbox sends it, signed with the app's secret over body and address. */
function delivery(hook: Hook): { id: string; body: string; signature: string } {
  const id = randomBytes(12).toString('hex')
  const card = randomBytes(12).toString('hex')
  const body = JSON.stringify({
    action: {
      id, type: 'createCard', date: new Date().toISOString(), idMemberCreator: hook.memberId,
      data: { board: { id: hook.boardId, name: 'Bench', shortLink: 'bEnChBoA' }, list: { id: hook.listId, name: 'To do' }, card: { id: card, name: `card ${id}`, idShort: 1, shortLink: 'cArDlInK' } },
      memberCreator: { id: hook.memberId, username: 'grace', fullName: 'Grace Hopper' },
    },
    model: { id: hook.boardId, name: 'Bench' },
  })
  return { id, body, signature: signature(SEED.app.secret, Buffer.from(body), hook.address).toString('base64') }
}

async function post(address: string, d: { body: string; signature: string }): Promise<number> {
  const res = await request(address, { method: 'POST', dispatcher, headers: { 'content-type': 'application/json', 'x-trello-webhook': d.signature }, body: d.body })
  await res.body.text()
  return res.statusCode
}

async function acksPerSecond(address: string, make: () => { body: string; signature: string }, durationMs: number): Promise<{ rate: number; refused: number }> {
  let acked = 0
  let refused = 0
  const deadline = Date.now() + durationMs
  const started = process.hrtime.bigint()
  await Promise.all(Array.from({ length: INTAKE_CONCURRENCY }, async () => {
    while (Date.now() < deadline) {
      if ((await post(address, make())) === 200) acked++
      else refused++
    }
  }))
  return { rate: acked / (Number(process.hrtime.bigint() - started) / 1e9), refused }
}

/** The floor: a server that only reads the body and answers 200. */
async function bareIntake(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => res.end('{}'))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}/hooks/bare`, close: () => new Promise((resolve) => server.close(() => resolve())) }
}

/** Steady deliveries; each run's start is read back from its run (the database clock is this machine's). */
async function triggerLatency(url: string, apiKey: string, hook: Hook): Promise<{ p50: number; p99: number; n: number }> {
  const sent = new Map<string, number>()
  const intervalMs = 1000 / LATENCY_RATE_PER_S
  const start = Date.now()
  const inFlight: Array<Promise<unknown>> = []
  for (let i = 0; Date.now() - start < LATENCY_MS; i++) {
    const due = start + i * intervalMs
    const wait = due - Date.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    const d = delivery(hook)
    sent.set(d.id, Date.now())
    inFlight.push(post(hook.address, d))
  }
  await Promise.all(inFlight)
  const latencies: number[] = []
  const deadline = Date.now() + 60_000
  while (latencies.length < sent.size && Date.now() < deadline) {
    latencies.length = 0
    let cursor: string | null = null
    do {
      const page: { runs: Array<{ event: any; started_at: string | null }>; next_cursor: string | null } = await call(url, apiKey, 'GET', `/v1/runs?limit=200${cursor ? `&cursor=${cursor}` : ''}&since=${new Date(start - 1000).toISOString()}`)
      for (const run of page.runs) {
        const at = sent.get(run.event?.action?.id)
        if (at !== undefined && run.started_at) latencies.push(new Date(run.started_at).getTime() - at)
      }
      cursor = page.next_cursor
    } while (cursor)
    if (latencies.length < sent.size) await new Promise((resolve) => setTimeout(resolve, 500))
  }
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), n: latencies.length }
}

const round = (n: number) => Math.round(n * 1000) / 1000

/** The intake's throughput and the trigger latency on one running service, with `label` naming its store. */
export async function triggerBench(service: { url: string; apiKey: string }, sandboxUrl: string, label: 'pglite' | 'postgres'): Promise<Record<string, number>> {
  const hook = await setUp(service.url, service.apiKey, sandboxUrl)
  const bare = await bareIntake()
  try {
    await acksPerSecond(hook.address, () => delivery(hook), 1000) // warm-up
    const floor = await acksPerSecond(bare.url, () => delivery(hook), INTAKE_MS / 2)
    const intake = await acksPerSecond(hook.address, () => delivery(hook), INTAKE_MS)
    if (intake.refused) throw new Error(`the intake refused ${intake.refused} deliveries`)
    // Let the worker drain the queue the throughput phase left before timing runs.
    await new Promise((resolve) => setTimeout(resolve, 2000))
    const latency = await triggerLatency(service.url, service.apiKey, hook)
    console.log(`triggers on ${label}: intake ${round(intake.rate)}/s (bare server ${round(floor.rate)}/s), latency p50 ${latency.p50} ms p99 ${latency.p99} ms over ${latency.n} runs`)
    return {
      [`intake_${label}_per_s`]: round(intake.rate),
      [`intake_bare_server_per_s_${label}_run`]: round(floor.rate),
      [`intake_${label}_ratio_to_bare`]: round(intake.rate / floor.rate),
      [`trigger_latency_${label}_p50_ms`]: latency.p50,
      [`trigger_latency_${label}_p99_ms`]: latency.p99,
      [`trigger_latency_${label}_runs`]: latency.n,
    }
  } finally {
    await bare.close()
  }
}
