import fs from 'node:fs'
import os from 'node:os'
import { createHmac, randomBytes } from 'node:crypto'
import { request } from 'undici'
import { SEED } from '../src/sandboxes/vercel/seed.ts'
import { connectVercel } from '../test/helpers/vercel.ts'
import { dispatcher, skippedAgentSubscription, type Service } from './deliveries/define.ts'

// Issue 22 §9, "hostile templates": the service's event-loop delay p99 while a subscription whose
// mapping is the runaway template receives deliveries (goal ≤ 20 ms), and whether `/health`
// answered throughout. The delay is the service's own (prom-client's monitorEventLoopDelay, read from
// /metrics, which resets it on each read), so the senders' load does not count.
const HOSTILE = '{{ $replace($pad("",1000000,"a"),"a",$pad("",100,"b")) }}'
const DURATION_MS = Number(process.env.BENCH_HOSTILE_MS ?? 10_000)
const DELIVERIES_PER_S = 10
const HEALTH_EVERY_MS = 50

/**
 * The service thread's time on a core and waiting for one, in ms (Linux's schedstat for the thread
 * whose id is the process id): the wait says how much of the delay was a core taken by something
 * else (template workers, or the shared machine), not work of the service's own.
 */
function mainThreadSchedule(pid: number | undefined): { runMs: number; waitMs: number } | undefined {
  try {
    const [run, wait] = fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ').map(Number)
    return { runMs: run! / 1e6, waitMs: wait! / 1e6 }
  } catch {
    return undefined
  }
}

/**
 * The whole service process's time on a core, in ms (Linux's utime + stime of /proc/<pid>/stat, in
 * clock ticks of 10 ms): every thread's, the template workers' too, which the main thread's schedule
 * above leaves out. On two shared cores, what the workers take is a core the service's thread waits for.
 */
function processCpuMs(pid: number | undefined): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return undefined
  }
}

async function metric(service: Service, name: string): Promise<number> {
  const res = await request(`${service.url}/metrics`, { dispatcher })
  const text = await res.body.text()
  const line = text.split('\n').find((l) => l.startsWith(`${name} `))
  if (!line) throw new Error(`/metrics has no ${name}`)
  return Number(line.split(' ')[1])
}

export async function hostileTemplatesBench(service: Service): Promise<Record<string, number>> {
  const loadAtStart = os.loadavg()[0]!
  const integration = (await connectVercel(service)).integrationId!
  const secret = `whsec_bench_${randomBytes(12).toString('hex')}`
  const sub = await skippedAgentSubscription(service, {
    step: { tool: 'vercel.list_deployments', input: { limit: 1 } },
    integration,
    trigger: 'vercel.deployment_failed',
    config: {},
    mapping: { title: HOSTILE },
    extra: { webhook_secret: secret },
  })
  const delivery = () => {
    const id = `evt_${randomBytes(12).toString('hex')}`
    const body = JSON.stringify({
      id,
      type: 'deployment.error',
      createdAt: Date.now(),
      payload: {
        team: null,
        user: { id: SEED.user.id },
        deployment: { id: `dpl_${id}`, name: 'bench', url: 'bench.vercel.app', meta: {} },
        links: { deployment: 'https://vercel.com/b/1', project: 'https://vercel.com/b' },
        target: null,
        project: { id: SEED.personalProject.id },
      },
    })
    return { body, signature: createHmac('sha1', secret).update(body).digest('hex') }
  }
  await metric(service, 'nodejs_eventloop_lag_p99_seconds') // resets the window
  const scheduleAtStart = mainThreadSchedule(service.pid)
  const cpuAtStart = processCpuMs(service.pid)
  const batchesAtStart = await metric(service, 'switchyard_template_worker_batches_total')
  const start = Date.now()
  let health = { answered: 0, failed: 0 }
  const checking = (async () => {
    while (Date.now() - start < DURATION_MS) {
      try {
        const res = await request(`${service.url}/health`, { dispatcher, headersTimeout: 2_000 })
        await res.body.text()
        if (res.statusCode === 200) health.answered++
        else health.failed++
      } catch {
        health.failed++
      }
      await new Promise((resolve) => setTimeout(resolve, HEALTH_EVERY_MS))
    }
  })()
  const sent: Array<Promise<number>> = []
  for (let i = 0; Date.now() - start < DURATION_MS; i++) {
    const wait = start + (i * 1000) / DELIVERIES_PER_S - Date.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    const d = delivery()
    sent.push(
      request(sub.webhook_address!, {
        method: 'POST',
        dispatcher,
        headers: { 'content-type': 'application/json', 'x-vercel-signature': d.signature },
        body: d.body,
      }).then(async (res) => (await res.body.text(), res.statusCode)),
    )
  }
  const statuses = await Promise.all(sent)
  await checking
  const p99Ms = (await metric(service, 'nodejs_eventloop_lag_p99_seconds')) * 1000
  const scheduleAtEnd = mainThreadSchedule(service.pid)
  const cpuAtEnd = processCpuMs(service.pid)
  const batches = (await metric(service, 'switchyard_template_worker_batches_total')) - batchesAtStart
  const elapsedS = (Date.now() - start) / 1000
  const results = {
    // The machine is shared: its load when the line began says how far to trust the numbers.
    hostile_templates_load_average: Math.round(loadAtStart * 100) / 100,
    hostile_templates_event_loop_p99_ms: Math.round(p99Ms * 10) / 10,
    hostile_templates_deliveries_acknowledged: statuses.filter((s) => s === 200).length,
    hostile_templates_deliveries_sent: statuses.length,
    hostile_templates_health_answered: health.answered,
    hostile_templates_health_failed: health.failed,
    // Deliveries whose template went to a worker: after the first fails at the size cap, it is held back.
    hostile_templates_worker_batches: batches,
    ...(cpuAtStart !== undefined && cpuAtEnd !== undefined
      ? { hostile_templates_process_cpu_ms_per_s: Math.round((cpuAtEnd - cpuAtStart) / elapsedS) }
      : {}),
    ...(scheduleAtStart && scheduleAtEnd
      ? {
          // Per second of the line: the service thread's time on a core, and waiting for one.
          hostile_templates_main_thread_run_ms_per_s:
            Math.round(((scheduleAtEnd.runMs - scheduleAtStart.runMs) / elapsedS) * 10) / 10,
          hostile_templates_main_thread_wait_ms_per_s:
            Math.round(((scheduleAtEnd.waitMs - scheduleAtStart.waitMs) / elapsedS) * 10) / 10,
        }
      : {}),
  }
  health = { answered: 0, failed: 0 }
  console.log(
    `hostile templates: event-loop delay p99 ${results.hostile_templates_event_loop_p99_ms} ms (goal ≤ 20 ms); ` +
      `${results.hostile_templates_deliveries_acknowledged}/${statuses.length} deliveries acknowledged; ` +
      `/health answered ${results.hostile_templates_health_answered}, failed ${results.hostile_templates_health_failed}; ` +
      `${batches} template worker batches`,
  )
  return results
}
