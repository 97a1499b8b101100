import fs from 'node:fs'
import { createHmac, randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandboxServer } from '../src/sandboxes/server.ts'
import {
  adminKey,
  removeDataDir,
  serviceEnv,
  startService,
  type ServiceEnv,
  type ServiceProcess,
} from './helpers/service-process.ts'
import { client } from './helpers/stack.ts'
import { connectVercel, VERCEL } from './helpers/vercel.ts'
import { isFinished, waitForRunState } from './helpers/engine.ts'

/**
 * One user's template cannot hurt another (docs/security.md, "Templates"): the service runs as its
 * own process, and every hostile template below, in a mapping preview, a live delivery's mapping, a
 * step's input or condition, or an agent's output, fails with a message naming its field and the
 * limit it met, never a 5xx, while `/health` keeps answering and the process's peak memory stays
 * bounded (before this, the first one alone grew the process to 2.4 GB and held `/health` for 6 s).
 */
const HOSTILE: Array<{ name: string; expression: string; limit: RegExp }> = [
  {
    name: 'a million replacements (issue 22)',
    expression: '$replace($pad("",1000000,"a"),"a",$pad("",100,"b"))',
    // The size limit, or, on a loaded machine, first JSONata's own time box, whose message names the
    // 1000 ms it allowed (seen on 2026-11-29 with the suite beside an npm install and a build).
    limit: /limit|timeout after 1000 milliseconds/i,
  },
  {
    name: 'a backtracking regular expression',
    expression: '$contains("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", /(a|a)+$/)',
    limit: /limit/,
  },
  { name: 'a 10 MB result', expression: '$pad("", 10000000, "x")', limit: /limit/ },
  {
    name: 'an array of ten million objects',
    expression: '$map([1..10000000], function($v) { {"v": $v} })',
    limit: /limit|sequence/i,
  },
  {
    name: 'endless recursion',
    expression: '($f := function($n) { $f($n + 1) }; $f(0))',
    // Deep recursion ends at the stack's limit, or, on a loaded machine, first at JSONata's own
    // time box, whose message names the 1000 ms it allowed.
    limit: /stack|limit|deep|timeout after 1000 milliseconds/i,
  },
]

/** Peak resident memory of a process so far, in MB (Linux's VmHWM). */
function peakMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024
}

/** Runs `work` while asking `/health` over and over; answers its result and the health answers that came back before it ended. */
async function withHealthChecks<T>(url: string, work: Promise<T>): Promise<{ result: T; healthy: number[] }> {
  let done = false
  const healthy: number[] = []
  const checking = (async () => {
    while (!done) {
      const res = await fetch(`${url}/health`)
      await res.text()
      // Every check began while the template was in flight, so its answer counts, even one that
      // arrives after a quickly stopped template (no timing is assumed either way).
      healthy.push(res.status)
    }
  })()
  const result = await work
  done = true
  await checking
  return { result, healthy }
}

describe('templates cannot hold the service or exhaust its memory', () => {
  let sandbox: Awaited<ReturnType<typeof startSandboxServer>>
  let env: ServiceEnv
  let service: ServiceProcess
  let api: ReturnType<typeof client>
  let integration: string

  beforeAll(async () => {
    sandbox = await startSandboxServer({ port: 0 })
    env = await serviceEnv(sandbox.url)
    service = await startService(env, 240_000)
    const stack = { url: service.url, apiKey: adminKey(env) }
    api = client(stack, stack.apiKey)
    integration = (await connectVercel(stack)).integrationId!
  }, 300_000)
  afterAll(async () => {
    await service?.stop()
    await sandbox?.close()
    removeDataDir(env)
  })

  async function agent(extra: Record<string, unknown> = {}, step: Record<string, unknown> = {}) {
    const created = await api.post('/v1/agents', {
      name: `hostile ${randomBytes(4).toString('hex')}`,
      inputs: [{ name: 'title', type: 'string', required: false }],
      kind: 'steps',
      steps: [
        {
          key: 'list',
          tool: 'vercel.list_deployments',
          integration,
          input: { limit: 1 },
          ...step,
        },
      ],
      ...extra,
    })
    expect(created.status, created.text).toBe(201)
    return created.body.id as string
  }

  async function vercelSubscription(agentId: string, mapping: Record<string, string>) {
    const secret = `whsec_${randomBytes(12).toString('hex')}`
    const sub = await api.post(`/v1/agents/${agentId}/subscriptions`, {
      trigger: 'vercel.deployment_failed',
      integration,
      config: {},
      mapping,
      webhook_secret: secret,
    })
    expect(sub.status, sub.text).toBe(201)
    const active = await api.post(`/v1/subscriptions/${sub.body.id}/activate`)
    expect(active.status, active.text).toBe(200)
    return { id: sub.body.id as string, address: active.body.webhook_address as string, secret }
  }

  it.each(HOSTILE)(
    'a mapping preview of $name names the field and the limit while /health answers',
    async ({ expression, limit }) => {
      const agentId = await agent()
      const sub = await vercelSubscription(agentId, { title: '{{ deployment.url }}' })
      const { result, healthy } = await withHealthChecks(
        service.url,
        api.post(`/v1/subscriptions/${sub.id}/preview`, { mapping: { title: `{{ ${expression} }}` } }),
      )
      expect(result.status, result.text).toBe(200)
      expect(result.body.errors).toEqual([{ field: 'mapping.title', message: expect.stringMatching(limit) }])
      expect(healthy.length).toBeGreaterThan(0)
      expect(healthy.every((s) => s === 200)).toBe(true)
      expect(peakMb(service.child.pid!)).toBeLessThan(1024)
    },
    60_000,
  )

  /** A signed Vercel deployment.error delivery to a subscription, with a new event id. */
  function deliver(sub: { address: string; secret: string }): Promise<Response> {
    const id = `evt_${randomBytes(8).toString('hex')}`
    const body = JSON.stringify({
      id,
      type: 'deployment.error',
      createdAt: Date.now(),
      payload: {
        team: null,
        user: { id: VERCEL.user.id },
        deployment: { id: `dpl_${id}`, name: 'p', url: 'p.vercel.app', meta: {} },
        project: { id: VERCEL.personalProject.id },
        target: null,
        links: { deployment: 'https://vercel.com/x/p/1', project: 'https://vercel.com/x/p' },
      },
    })
    return fetch(sub.address, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-vercel-signature': createHmac('sha1', sub.secret).update(body).digest('hex'),
      },
      body,
    })
  }

  /** One counter of the service's /metrics. */
  async function counter(name: string): Promise<number> {
    const text = await (await fetch(`${service.url}/metrics`)).text()
    const line = text.split('\n').find((l) => l.startsWith(`${name} `))
    return Number(line?.split(' ')[1] ?? 'NaN')
  }

  it('a delivery whose mapping is hostile is acknowledged, and its run fails with mapping_failed naming the field', async () => {
    const agentId = await agent()
    const sub = await vercelSubscription(agentId, { title: `{{ ${HOSTILE[0].expression} }}` })
    const { result, healthy } = await withHealthChecks(service.url, deliver(sub))
    expect(result.status, await result.text()).toBe(200)
    expect(healthy.every((s) => s === 200)).toBe(true)
    const runs = await api.get(`/v1/runs?subscription_id=${sub.id}`)
    expect(runs.body.runs).toHaveLength(1)
    const run = runs.body.runs[0]
    expect(run.status).toBe('failed')
    expect(run.error.code).toBe('mapping_failed')
    expect(run.error.message).toMatch(/mapping\.title: .*limit/)
  })

  // Issue 22 §9: every delivery started the runaway mapping again, and each stop ended a worker and
  // started another, holding the service's thread for tens of milliseconds a second.
  it('once a mapping was stopped, the next delivery fails its run at once, in no template worker, saying when it was stopped and what to do', async () => {
    const agentId = await agent()
    // Its own text, so no earlier test's stop holds it back, and one that runs past the time limit on
    // any machine (a backtracking expression; a large $replace can finish in time on a quiet one).
    const runaway = `{{ $contains("${'a'.repeat(60)}!", /(a|a)+$/) ? "x" : "y" }}`
    const sub = await vercelSubscription(agentId, { title: runaway })
    expect((await deliver(sub)).status).toBe(200)
    const batches = await counter('switchyard_template_worker_batches_total')
    const stopped = await counter('switchyard_templates_stopped_total')
    expect(stopped).toBeGreaterThan(0)
    expect((await deliver(sub)).status).toBe(200)
    expect(await counter('switchyard_template_worker_batches_total')).toBe(batches)
    expect(await counter('switchyard_templates_stopped_total')).toBe(stopped)
    const runs = (await api.get(`/v1/runs?subscription_id=${sub.id}`)).body.runs
    expect(runs).toHaveLength(2)
    expect(runs.map((r: any) => [r.status, r.error.code])).toEqual([
      ['failed', 'mapping_failed'],
      ['failed', 'mapping_failed'],
    ])
    expect(runs.map((r: any) => r.error.message).sort()).toEqual([
      expect.stringMatching(
        /^the trigger's mapping did not give the agent's inputs: mapping\.title: it ran longer than 1 s, the limit for a template, and was stopped; it is not run again for 10 minutes unless it is changed$/,
      ),
      expect.stringMatching(
        /mapping\.title: not run: it was stopped at \d\d:\d\d UTC for running longer than 1 s, the limit for a template; fix the template .*tried again after \d\d:\d\d UTC$/,
      ),
    ])
  })

  it.each([
    {
      where: 'a step input',
      agent: () => agent({}, { input: { limit: `{{ ${HOSTILE[0].expression} }}` } }),
      field: 'steps.list.input.limit',
    },
    {
      where: 'a step condition',
      agent: () => agent({}, { condition: HOSTILE[1].expression }),
      field: 'steps.list.condition',
    },
    {
      where: "an agent's output",
      agent: () => agent({ output: { big: `{{ ${HOSTILE[2].expression} }}` } }),
      field: 'output.big',
    },
  ])(
    'a hostile template in $where fails the run naming $field, and the run keeps no large value',
    async (c) => {
      const agentId = await c.agent()
      const started = await api.post(`/v1/agents/${agentId}/runs`, { inputs: {} })
      expect(started.status, started.text).toBe(201)
      const run = await waitForRunState(api, started.body.id, isFinished, 60_000)
      expect(run.status).toBe('failed')
      expect(run.error.message).toContain(c.field)
      expect(run.error.message).toMatch(/limit/)
      expect(run.result ?? null).toBeNull()
      const whole = await api.get(`/v1/runs/${started.body.id}`)
      expect(whole.text.length).toBeLessThan(100_000)
      expect(peakMb(service.child.pid!)).toBeLessThan(1024)
    },
  )

  it('plain paths still render, and a benign function in a worker too', async () => {
    const agentId = await agent()
    const sub = await vercelSubscription(agentId, { title: '{{ deployment.url }}' })
    const preview = await api.post(`/v1/subscriptions/${sub.id}/preview`, {
      mapping: { title: '{{ $uppercase(deployment.url) }} ({{ deployment.id }})' },
    })
    expect(preview.body.errors).toEqual([])
    // The address upper-cased in a worker (no lower-case letter left), then the id from the inline path.
    expect(preview.body.inputs.title).toMatch(/^[^a-z\s]+ \(dpl_\w+\)$/)
  })
})
