import http from 'node:http'
import autocannon from 'autocannon'
import { request } from 'undici'
import { call, dispatcher, type Delivery, type DeliveryFactory, type DeliveryTarget, type Service } from './deliveries/define.ts'
import { trelloDeliveries } from './deliveries/trello.ts'
import { vercelDeliveries } from './deliveries/vercel.ts'
import { zendeskDeliveries } from './deliveries/zendesk.ts'
import { cpuSeconds } from './cpu.ts'
import { percentile } from './measure.ts'

// The event engine's speed (issue 10 §7, issue 11 §5): deliveries per second acknowledged durably by
// the webhook intake, and the time from a delivery's arrival to its run starting, at a steady 200
// deliveries per second, for each platform's deliveries (their signature checks differ in cost:
// Trello HMAC-SHA1 over body and address, Zendesk HMAC-SHA256 over timestamp and body, Vercel
// HMAC-SHA1 over the body). The baseline, measured in the same run with the same deliveries, is a
// bare Node HTTP server that reads the body and answers 200 without verifying or storing anything:
// the floor of any intake on this machine. The deliveries of a timed phase are made and signed
// before it starts: signing is the platform's work, done on its own machines, and here it would take
// the service's CPU.
/**
 * Senders posting at once, each sending its next delivery when the last is answered. Enough to keep
 * the intake saturated: at 32 the senders waited on their own round trips, and 48 to 128 each gave
 * about a tenth more than 32 and about the same as each other (docs/benchmarks.md).
 */
const INTAKE_SENDERS = 64
/** Deliveries made ahead for each second of the intake phase: more than any store here acknowledges. */
const PREMADE_PER_S = 10_000
/** Deliveries the floor's phase cycles through (a bare server does not deduplicate). */
const FLOOR_DELIVERIES = 2_000
const INTAKE_MS = Number(process.env.BENCH_INTAKE_MS ?? 8_000)
const LATENCY_RATE_PER_S = 200
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 10_000)
/** How long to wait for the runs one platform's throughput phase queued before timing the next thing. */
const DRAIN_LIMIT_MS = 180_000

export const TRIGGER_PLATFORMS: DeliveryFactory[] = [trelloDeliveries, zendeskDeliveries, vercelDeliveries]

async function post(address: string, d: Delivery): Promise<number> {
  const res = await request(address, { method: 'POST', dispatcher, headers: { 'content-type': 'application/json', ...d.headers }, body: d.body })
  await res.body.text()
  return res.statusCode
}

/** Deliveries made ahead of time, then fresh ones should the phase outrun them. */
function premade(make: () => Delivery, count: number): () => Delivery {
  const ready = Array.from({ length: count }, make)
  return () => ready.pop() ?? make()
}

/** Deliveries cycling through a few made ahead of time (for a server that does not deduplicate). */
function cycling(make: () => Delivery, count: number): () => Delivery {
  const ready = Array.from({ length: count }, make)
  let next = 0
  return () => ready[next++ % ready.length]!
}

interface Acks {
  rate: number
  refused: number
  /** CPU microseconds per acknowledged delivery, of the service's process and of PostgreSQL's. */
  serviceCpuUs: number
  databaseCpuUs: number
}

/**
 * Deliveries acknowledged per second by `address` over `durationMs`. The senders are autocannon's
 * lean HTTP/1.1 client: on a real deployment the platform's senders run on its own machines, and
 * here every microsecond they spend is taken from the two cores the service and PostgreSQL share
 * (undici's client took about 89 µs a delivery, autocannon's about 67, and the intake rose by about
 * a fifth, docs/benchmarks.md).
 */
async function acksPerSecond(address: string, next: () => Delivery, durationMs: number, servicePid?: number): Promise<Acks> {
  const url = new URL(address)
  const cpuBefore = cpuSeconds(servicePid)
  const started = process.hrtime.bigint()
  const result = await autocannon({
    url: url.origin,
    connections: INTAKE_SENDERS,
    duration: durationMs / 1000,
    requests: [{
      method: 'POST',
      path: url.pathname,
      setupRequest: (request) => {
        const d = next()
        return { ...request, body: d.body, headers: { 'content-type': 'application/json', ...d.headers } }
      },
    }],
  })
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const cpuAfter = cpuSeconds(servicePid)
  const acked = result['2xx']
  const perDeliveryUs = (s: number) => Math.round((s * 1e6) / Math.max(acked, 1))
  return {
    rate: acked / seconds,
    refused: result.non2xx + result.errors + result.timeouts,
    serviceCpuUs: perDeliveryUs(cpuAfter.service - cpuBefore.service),
    databaseCpuUs: perDeliveryUs(cpuAfter.database - cpuBefore.database),
  }
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

/**
 * Waits until none of the subscription's runs is queued or running, so one phase's backlog (tens of
 * thousands of runs from a throughput phase) does not slow the next phase. Answers how long it took.
 */
async function drained(service: Service, target: DeliveryTarget): Promise<number> {
  const start = Date.now()
  while (Date.now() - start < DRAIN_LIMIT_MS) {
    const queued = await call(service, 'GET', `/v1/runs?subscription_id=${target.subscriptionId}&status=queued&limit=1`)
    const running = await call(service, 'GET', `/v1/runs?subscription_id=${target.subscriptionId}&status=running&limit=1`)
    if (!queued.runs.length && !running.runs.length) return Date.now() - start
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  throw new Error(`runs were still queued after ${DRAIN_LIMIT_MS} ms`)
}

/** Steady deliveries; each run's start is read back from its run (the database clock is this machine's). */
async function triggerLatency(service: Service, target: DeliveryTarget): Promise<{ p50: number; p99: number; n: number }> {
  const sent = new Map<string, number>()
  const intervalMs = 1000 / LATENCY_RATE_PER_S
  const start = Date.now()
  const inFlight: Array<Promise<unknown>> = []
  for (let i = 0; Date.now() - start < LATENCY_MS; i++) {
    const due = start + i * intervalMs
    const wait = due - Date.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    const d = target.make()
    sent.set(d.id, Date.now())
    inFlight.push(post(target.address, d))
  }
  await Promise.all(inFlight)
  const latencies: number[] = []
  const deadline = Date.now() + 60_000
  while (latencies.length < sent.size && Date.now() < deadline) {
    latencies.length = 0
    let cursor: string | null = null
    do {
      const page: { runs: Array<{ event: any; started_at: string | null }>; next_cursor: string | null } = await call(service, 'GET', `/v1/runs?subscription_id=${target.subscriptionId}&limit=200${cursor ? `&cursor=${cursor}` : ''}&since=${new Date(start - 1000).toISOString()}`)
      for (const run of page.runs) {
        const id = target.eventIdOf(run.event)
        const at = id === undefined ? undefined : sent.get(id)
        if (at !== undefined && run.started_at) latencies.push(new Date(run.started_at).getTime() - at)
      }
      cursor = page.next_cursor
    } while (cursor)
    if (latencies.length < sent.size) await new Promise((resolve) => setTimeout(resolve, 500))
  }
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), n: latencies.length }
}

const round = (n: number) => Math.round(n * 1000) / 1000

/** One platform's intake throughput and trigger latency on a running service. */
async function platformBench(service: Service, sandboxUrl: string, factory: DeliveryFactory, store: 'pglite' | 'postgres'): Promise<Record<string, number>> {
  const target = await factory.setUp(service, sandboxUrl)
  const make = () => target.make()
  const bare = await bareIntake()
  try {
    await acksPerSecond(target.address, make, 1000) // warm-up
    const floor = await acksPerSecond(bare.url, cycling(make, FLOOR_DELIVERIES), INTAKE_MS / 2)
    const intake = await acksPerSecond(target.address, premade(make, Math.ceil((INTAKE_MS / 1000) * PREMADE_PER_S)), INTAKE_MS, service.pid)
    if (intake.refused) throw new Error(`the ${factory.platform} intake refused ${intake.refused} deliveries`)
    // Let the worker drain the queue the throughput phase left before timing runs.
    const drainMs = await drained(service, target)
    const latency = await triggerLatency(service, target)
    const key = `${factory.platform}_${store}`
    console.log(`${factory.platform} triggers on ${store}: intake ${round(intake.rate)}/s (bare server ${round(floor.rate)}/s; CPU per delivery: service ${intake.serviceCpuUs} µs, PostgreSQL ${intake.databaseCpuUs} µs), latency p50 ${latency.p50} ms p99 ${latency.p99} ms over ${latency.n} runs (the backlog drained in ${drainMs} ms)`)
    return {
      [`intake_${key}_per_s`]: round(intake.rate),
      [`intake_bare_server_per_s_${key}_run`]: round(floor.rate),
      [`intake_${key}_ratio_to_bare`]: round(intake.rate / floor.rate),
      [`intake_${key}_service_cpu_us_per_delivery`]: intake.serviceCpuUs,
      ...(store === 'postgres' ? { [`intake_${key}_postgres_cpu_us_per_delivery`]: intake.databaseCpuUs } : {}),
      [`trigger_latency_${key}_p50_ms`]: latency.p50,
      [`trigger_latency_${key}_p99_ms`]: latency.p99,
      [`trigger_latency_${key}_runs`]: latency.n,
      [`trigger_backlog_${key}_drained_ms`]: drainMs,
    }
  } finally {
    await bare.close()
  }
}

/** Every platform's intake throughput and trigger latency on one running service, `store` naming its store. */
export async function triggerBench(service: Service, sandboxUrl: string, store: 'pglite' | 'postgres', platforms = TRIGGER_PLATFORMS): Promise<Record<string, number>> {
  const results: Record<string, number> = {}
  for (const factory of platforms) Object.assign(results, await platformBench(service, sandboxUrl, factory, store))
  return results
}
