import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandboxServer } from '../../src/sandboxes/server.ts'
import {
  adminKey,
  removeDataDir,
  serviceEnv,
  startService,
  type ServiceEnv,
  type ServiceProcess,
} from './service-process.ts'
import { client } from './stack.ts'
import { scratchDatabase } from './scratch-database.ts'

/**
 * Crash during a burst (docs/architecture.md, "Acknowledged only when durable"), for any intake: the
 * service runs as a child process and is killed with SIGKILL while the platform's deliveries for a
 * burst of events are in flight, then comes back on the same port inside the sandbox's retry window.
 * The sandbox runs in the test process, so its state and its retries survive the kill. Every event
 * must give exactly one run: none lost (a 2xx only after the commit, so an unanswered delivery is
 * retried) and none twice (a retried delivery is a duplicate of its event id).
 *
 * Each platform gives only its own part: connecting and subscribing, making events on the sandbox,
 * waiting for the sandbox's deliveries, and which event a run came from.
 */

export type Api = ReturnType<typeof client>

export interface BurstPlatform {
  /** Connects, creates the agent and its active subscription; answers the subscription's id. */
  setUp(stack: { url: string; apiKey: string }, api: Api): Promise<string>
  /** Makes events `from`..`from + count - 1` on the sandbox at once; answers their keys (see `keyOf`). */
  make(from: number, count: number): Promise<string[]>
  /** Waits until the sandbox has nothing pending; answers its deliveries to this service. */
  settled(serviceUrl: string): Promise<{
    settled: boolean
    deliveries: Array<{ state: string; attempts: Array<{ status: number | null }> }>
  }>
  /** The key of the event a run came from (one of `make`'s). */
  keyOf(run: any): string
}

export interface CrashBurst {
  /** What the events are, for the test's name ("card", "ticket", "failed deployment"). */
  event: string
  burst: number
  /** Prefix of the fresh PostgreSQL database with TEST_DATABASE_URL. */
  dbPrefix: string
  platform(sandboxUrl: string): BurstPlatform
}

/**
 * How long a wait below may go without any progress before the test fails. The waits themselves
 * have no budget: on a loaded machine the burst is slower, not wrong (a fixed 60 s for the runs and
 * a 240 s test limit failed the Trello burst at load 12), so each waits for as long as the count it
 * watches keeps moving, and a stall is what a lost delivery or a stuck run looks like. Three run
 * leases (DEFAULT_RUN_LEASE_MS, 30 s): a run cut off by the kill moves again once its lease lapses.
 */
const STALL_MS = 90_000
/** Vitest's limit for the whole test: a last guard against a hang the stall checks would miss. */
const CEILING_MS = 20 * 60_000

export function describeCrashBurst(title: string, options: CrashBurst): void {
  const { burst } = options
  const killAfter = Math.floor(burst / 3)
  describe(title, () => {
    let sandbox: Awaited<ReturnType<typeof startSandboxServer>>
    let env: ServiceEnv
    let service: ServiceProcess | undefined
    let database: { url: string; drop(): Promise<void> } | undefined

    beforeAll(async () => {
      sandbox = await startSandboxServer({ port: 0 })
      if (process.env.TEST_DATABASE_URL)
        database = await scratchDatabase(process.env.TEST_DATABASE_URL, options.dbPrefix)
      // More runs at once than the default 8: the burst's runs are what takes the time here.
      env = { ...(await serviceEnv(sandbox.url, database?.url)), extra: { SWITCHYARD_RUN_CONCURRENCY: '32' } }
    })
    afterAll(async () => {
      await service?.kill9()
      await sandbox?.close()
      await database?.drop()
      removeDataDir(env)
    })

    it(
      `every ${options.event} made during a kill -9 and restart produced exactly one run`,
      async () => {
        const platform = options.platform(sandbox.url)
        service = await startService(env)
        const stack = { url: service.url, apiKey: adminKey(env) }
        const api = client(stack, stack.apiKey)
        const subscriptionId = await platform.setUp(stack, api)

        // Events are made in parallel batches; the service dies a third of the way in and is started
        // again at once while the rest are still being made and delivered.
        const keys: string[] = []
        let restarted: Promise<ServiceProcess> | undefined
        for (let made = 0; made < burst;) {
          const batch = Math.min(50, burst - made)
          keys.push(...(await platform.make(made, batch)))
          made += batch
          if (!restarted && made >= killAfter) {
            const dying = service
            restarted = dying.kill9().then(() => startService(env))
          }
        }
        const t0 = Date.now()
        service = await restarted!
        const phase = (name: string) => console.info(`${name}: ${Date.now() - t0} ms`)
        phase('restarted')
        expect(new Set(keys).size).toBe(burst)

        // The sandbox answers after at most a minute, settled or not; ask again while its deliveries
        // keep moving (more attempts made, more delivered).
        let settled = await platform.settled(service.url)
        for (let before = -1; !settled.settled && deliveryProgress(settled.deliveries) !== before;) {
          before = deliveryProgress(settled.deliveries)
          settled = await platform.settled(service.url)
        }
        expect(settled.settled).toBe(true)
        phase('settled')
        // Some deliveries met the dead service; the retries got through.
        const failedAttempts = settled.deliveries.filter((d) =>
          d.attempts.some((a) => a.status !== 200),
        ).length
        expect(failedAttempts).toBeGreaterThan(0)
        expect(settled.deliveries.filter((d) => d.state !== 'delivered')).toEqual([])

        const runs = await whileProgressing(`${burst} runs`, async () => {
          const all = await allRuns(api, subscriptionId)
          return { done: all.length >= burst ? all : undefined, progress: all.length }
        }).catch(async (err) => {
          const seen = new Set((await allRuns(api, subscriptionId)).map((r) => platform.keyOf(r)))
          console.error(`runs ${seen.size}, missing ${keys.filter((k) => !seen.has(k)).length}`)
          throw err
        })
        const perEvent = new Map<string, number>()
        for (const run of runs)
          perEvent.set(platform.keyOf(run), (perEvent.get(platform.keyOf(run)) ?? 0) + 1)
        expect([...perEvent.values()].filter((n) => n !== 1)).toEqual([]) // none twice
        expect(keys.filter((k) => !perEvent.has(k))).toEqual([]) // none lost
        expect(runs).toHaveLength(burst)
        phase('counted')
        // The runs cut off by the kill are taken over once their lease lapses; all of them finish.
        await whileProgressing('every run finished', async () => {
          const finished = (await allRuns(api, subscriptionId)).filter((r) => r.status === 'succeeded').length
          return { done: finished === burst, progress: finished }
        })
        console.info(`burst of ${burst}: ${failedAttempts} deliveries needed a retry`)
      },
      CEILING_MS,
    )
  })
}

/** Attempts made plus deliveries delivered: it grows while the sandbox's deliveries get anywhere. */
function deliveryProgress(deliveries: Array<{ state: string; attempts: unknown[] }>): number {
  return deliveries.reduce((sum, d) => sum + d.attempts.length + (d.state === 'delivered' ? 1 : 0), 0)
}

/**
 * Probes every 50 ms until `done`; fails only once `progress` has not changed for `STALL_MS`.
 */
async function whileProgressing<T>(
  what: string,
  probe: () => Promise<{ done: T | undefined | false; progress: number }>,
): Promise<T> {
  let last = Number.NaN
  let movedAt = Date.now()
  for (;;) {
    const { done, progress } = await probe()
    if (done) return done
    if (progress !== last) {
      last = progress
      movedAt = Date.now()
    } else if (Date.now() - movedAt > STALL_MS)
      throw new Error(`${what}: no progress for ${STALL_MS / 1000} s (stuck at ${progress})`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

export async function allRuns(api: Api, subscriptionId: string): Promise<any[]> {
  const out: any[] = []
  let cursor: string | null = null
  do {
    const res: { status: number; body: any; text: string } = await api.get(
      `/v1/runs?subscription_id=${subscriptionId}&limit=200${cursor ? `&cursor=${cursor}` : ''}`,
    )
    if (res.status !== 200) throw new Error(`runs: ${res.status} ${res.text}`)
    out.push(...res.body.runs)
    cursor = res.body.next_cursor
  } while (cursor)
  return out
}
