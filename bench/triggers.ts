import { execFileSync } from 'node:child_process'
import http from 'node:http'
import { request } from 'undici'
import {
  call,
  dispatcher,
  type Delivery,
  type DeliveryFactory,
  type DeliveryTarget,
  type Service,
} from './deliveries/define.ts'
import { trelloDeliveries } from './deliveries/trello.ts'
import { vercelDeliveries } from './deliveries/vercel.ts'
import { zendeskDeliveries } from './deliveries/zendesk.ts'
import { cpuSeconds } from './cpu.ts'
import { send } from './senders.ts'
import { percentile } from './measure.ts'

// The event engine's speed (issue 10 §7, issue 11 §5): deliveries per second acknowledged durably by
// the webhook intake, and the time from a delivery's arrival to its run starting, at a steady 200
// deliveries per second, for each platform's deliveries (their signature checks differ in cost:
// Trello HMAC-SHA1 over body and address, Zendesk HMAC-SHA256 over timestamp and body, Vercel
// HMAC-SHA1 over the body). The baseline, measured in the same run with the same deliveries, is a
// bare Node HTTP server that reads the body and answers 200 without verifying or storing anything:
// the floor of any intake on this machine. The deliveries of a timed phase are made and signed
// before it starts: signing is the platform's work, done on its own machines, and here it would take
// the service's CPU. So are the senders lean (bench/senders.ts).
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
  const res = await request(address, {
    method: 'POST',
    dispatcher,
    headers: { 'content-type': 'application/json', ...d.headers },
    body: d.body,
  })
  await res.body.text()
  return res.statusCode
}

const made = (make: () => Delivery, count: number): Delivery[] => Array.from({ length: count }, make)

interface Acks {
  rate: number
  refused: number
  /** CPU microseconds per acknowledged delivery, of the service's process, PostgreSQL's and the senders'. */
  serviceCpuUs: number
  databaseCpuUs: number
  sendersCpuUs: number
}

/**
 * Deliveries acknowledged per second by `address` over `durationMs`, sent from `deliveries` (which
 * start over if they run out: only a server that does not deduplicate may be given too few).
 */
async function acksPerSecond(
  address: string,
  deliveries: Delivery[],
  durationMs: number,
  options: { servicePid?: number; mayRepeat?: boolean } = {},
): Promise<Acks> {
  const cpuBefore = cpuSeconds(options.servicePid)
  const sent = await send(address, deliveries, durationMs)
  const cpuAfter = cpuSeconds(options.servicePid)
  if (!options.mayRepeat && sent.completed > deliveries.length)
    throw new Error(`the senders ran out of the ${deliveries.length} deliveries made for the phase`)
  const perDeliveryUs = (s: number) => Math.round((s * 1e6) / Math.max(sent.acknowledged, 1))
  return {
    rate: sent.acknowledged / sent.seconds,
    refused: sent.refused,
    serviceCpuUs: perDeliveryUs(cpuAfter.service - cpuBefore.service),
    databaseCpuUs: perDeliveryUs(cpuAfter.database - cpuBefore.database),
    sendersCpuUs: perDeliveryUs(sent.cpuSeconds),
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
  return {
    url: `http://127.0.0.1:${port}/hooks/bare`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

/**
 * Waits until none of the subscription's runs is queued or running, so one phase's backlog (tens of
 * thousands of runs from a throughput phase) does not slow the next phase. Answers how long it took.
 */
async function drained(service: Service, target: DeliveryTarget): Promise<number> {
  const start = Date.now()
  while (Date.now() - start < DRAIN_LIMIT_MS) {
    const queued = await call(
      service,
      'GET',
      `/v1/runs?subscription_id=${target.subscriptionId}&status=queued&limit=1`,
    )
    const running = await call(
      service,
      'GET',
      `/v1/runs?subscription_id=${target.subscriptionId}&status=running&limit=1`,
    )
    if (!queued.runs.length && !running.runs.length) return Date.now() - start
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  throw new Error(`runs were still queued after ${DRAIN_LIMIT_MS} ms`)
}

/** Steady deliveries; each run's start is read back from its run (the database clock is this machine's). */
async function triggerLatency(
  service: Service,
  target: DeliveryTarget,
): Promise<{ p50: number; p99: number; n: number }> {
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
      const page: { runs: Array<{ event: any; started_at: string | null }>; next_cursor: string | null } =
        await call(
          service,
          'GET',
          `/v1/runs?subscription_id=${target.subscriptionId}&limit=200${cursor ? `&cursor=${cursor}` : ''}&since=${new Date(start - 1000).toISOString()}`,
        )
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
export async function platformBench(
  service: Service,
  sandboxUrl: string,
  factory: DeliveryFactory,
  store: 'pglite' | 'postgres',
): Promise<Record<string, number>> {
  const target = await factory.setUp(service, sandboxUrl)
  const make = () => target.make()
  const bare = await bareIntake()
  try {
    await acksPerSecond(target.address, made(make, PREMADE_PER_S), 1000) // warm-up
    const floor = await acksPerSecond(bare.url, made(make, FLOOR_DELIVERIES), INTAKE_MS / 2, {
      mayRepeat: true,
    })
    const intake = await acksPerSecond(
      target.address,
      made(make, Math.ceil((INTAKE_MS / 1000) * PREMADE_PER_S)),
      INTAKE_MS,
      { servicePid: service.pid },
    )
    if (intake.refused) throw new Error(`the ${factory.platform} intake refused ${intake.refused} deliveries`)
    // Let the worker drain the queue the throughput phase left before timing runs.
    const drainMs = await drained(service, target)
    // And let the kernel write that burst's data out: the latency is that of a steady pace. Otherwise
    // the kernel wrote the burst's dirty pages (about 120 MB) out about 30 s after they were written,
    // in the latency phase, and each time commits waited for it for about 200 ms (docs/benchmarks.md).
    execFileSync('sync')
    const latency = await triggerLatency(service, target)
    const key = `${factory.platform}_${store}`
    console.log(
      `${factory.platform} triggers on ${store}: intake ${round(intake.rate)}/s (bare server ${round(floor.rate)}/s; CPU per delivery: service ${intake.serviceCpuUs} µs, PostgreSQL ${intake.databaseCpuUs} µs, senders ${intake.sendersCpuUs} µs), latency p50 ${latency.p50} ms p99 ${latency.p99} ms over ${latency.n} runs (the backlog drained in ${drainMs} ms)`,
    )
    return {
      [`intake_${key}_per_s`]: round(intake.rate),
      [`intake_bare_server_per_s_${key}_run`]: round(floor.rate),
      [`intake_${key}_ratio_to_bare`]: round(intake.rate / floor.rate),
      [`intake_${key}_service_cpu_us_per_delivery`]: intake.serviceCpuUs,
      ...(store === 'postgres'
        ? { [`intake_${key}_postgres_cpu_us_per_delivery`]: intake.databaseCpuUs }
        : {}),
      [`intake_${key}_senders_cpu_us_per_delivery`]: intake.sendersCpuUs,
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
export async function triggerBench(
  service: Service,
  sandboxUrl: string,
  store: 'pglite' | 'postgres',
  platforms = TRIGGER_PLATFORMS,
): Promise<Record<string, number>> {
  const results: Record<string, number> = {}
  for (const factory of platforms)
    Object.assign(results, await platformBench(service, sandboxUrl, factory, store))
  return results
}
