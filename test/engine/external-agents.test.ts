import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isFinished, startEngineStack, STORES, waitForRunState, type EngineStack } from '../helpers/engine.ts'
import { client } from '../helpers/stack.ts'

// Issue 10, "External": a run of an external agent is delivered to it as a Standard Webhooks POST,
// retried with backoff (each attempt on the timeline, `webhook-id` = the run id on every one); the
// agent calls tool steps with the run token from the body, and they land on the run's timeline; the
// token does nothing else, and dies when the agent reports the run finished.

interface Delivery {
  headers: Record<string, string>
  body: string
}
interface Held {
  hold(delivery: Delivery): Promise<number>
}

/** A local agent: records each delivery by run id and answers the next status of its script (then 200). */
async function startReceiver() {
  const deliveries = new Map<string, Delivery[]>()
  const script: Array<number | Held> = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString()
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]))
      const runId = headers['webhook-id']
      deliveries.set(runId, [...(deliveries.get(runId) ?? []), { headers, body }])
      const next = script.shift() ?? 200
      res.statusCode = typeof next === 'number' ? next : await next.hold({ headers, body })
      res.end(res.statusCode === 200 ? 'ok' : 'agent is down')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/runs`,
    deliveries,
    /** The statuses the next deliveries get, in order. */
    answer: (...statuses: number[]) => script.push(...statuses),
    /** Holds the next delivery open until the test answers it: the agent at work before it replies. */
    holdNext: () => {
      let arrived!: (d: Delivery) => void
      let reply!: (status: number) => void
      const delivery = new Promise<Delivery>((resolve) => {
        arrived = resolve
      })
      const status = new Promise<number>((resolve) => {
        reply = resolve
      })
      script.push({
        hold: (d) => {
          arrived(d)
          return status
        },
      })
      return { delivery, reply }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

describe.each(STORES)('external agents, on $name', ({ open }) => {
  let e: EngineStack
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  beforeAll(async () => {
    e = await startEngineStack(await open('external'))
    receiver = await startReceiver()
  })
  afterAll(async () => {
    await e?.close()
    await receiver?.close()
  })

  const externalAgent = async (api: ReturnType<typeof client>) => {
    const created = await api.post('/v1/agents', {
      name: `Elsewhere ${Math.random()}`,
      kind: 'external',
      external: { url: receiver.url, integrations: [e.integrationId] },
    })
    expect(created.status, created.text).toBe(201)
    expect(created.body.signing_secret).toMatch(/^whsec_/)
    return { id: created.body.id as string, secret: created.body.signing_secret as string }
  }
  /** Starts a run and waits until the agent has it; answers the run id and the deliveries it got. */
  const deliveredRun = async (api: ReturnType<typeof client>, agentId: string) => {
    const started = await api.post(`/v1/agents/${agentId}/runs`, { inputs: {} })
    expect(started.status, started.text).toBe(201)
    const run = await waitForRunState(api, started.body.id, (r) =>
      r.timeline?.some((s: any) => s.kind === 'delivery' && s.status !== 'running'),
    )
    return { run, deliveries: receiver.deliveries.get(run.id) ?? [] }
  }

  it('delivers signed, retries after a 500 with the same webhook-id, and takes tool calls and the completion from the run token', async () => {
    const agent = await externalAgent(e.api)
    receiver.answer(500)
    const { run, deliveries } = await deliveredRun(e.api, agent.id)
    expect(run.status).toBe('running')

    // Two attempts on the timeline, two at the agent, each verifiable with the secret shown at creation.
    const delivery = run.timeline.find((s: any) => s.kind === 'delivery')
    expect(delivery.status).toBe('succeeded')
    expect(delivery.attempts.map((a: any) => [a.outcome, a.status])).toEqual([
      ['failed', 500],
      ['succeeded', 200],
    ])
    expect(delivery.attempts[0].retry_in_ms).toBeGreaterThanOrEqual(0)
    expect(deliveries).toHaveLength(2)
    const verifier = new Webhook(agent.secret)
    for (const d of deliveries) {
      expect(d.headers['webhook-id']).toBe(run.id)
      expect(() => verifier.verify(d.body, d.headers)).not.toThrow()
    }
    expect(() =>
      new Webhook(`whsec_${Buffer.from('someone else').toString('base64')}`).verify(
        deliveries[1].body,
        deliveries[1].headers,
      ),
    ).toThrow()
    const body = JSON.parse(deliveries[1].body)
    expect(body.run.id).toBe(run.id)
    expect(body.run_token).toMatch(/^syr_/)
    expect(JSON.parse(deliveries[0].body).run_token).toBe(body.run_token) // a retry carries the same token

    // The token calls a tool step, and the call is on the run's timeline.
    const agentApi = client(e.stack, body.run_token)
    const called = await agentApi.run('trello.get_boards', e.integrationId, {})
    expect(called.status, called.text).toBe(200)
    const seen = (await agentApi.get(`/v1/runs/${run.id}`)).body
    const call = seen.timeline.find((s: any) => s.kind === 'tool_call')
    expect(call).toMatchObject({
      tool_id: 'trello.get_boards',
      status: 'succeeded',
      integration_id: e.integrationId,
    })

    // Nothing else.
    for (const [method, path] of [
      ['GET', '/v1/agents'],
      ['GET', '/v1/runs'],
      ['POST', `/v1/runs/${run.id}/cancel`],
      ['GET', '/v1/me'],
      ['POST', '/v1/agents'],
    ]) {
      expect(
        (await agentApi.call(method, path, method === 'POST' ? {} : undefined)).status,
        `${method} ${path}`,
      ).toBe(403)
    }

    const done = await agentApi.post(`/v1/runs/${run.id}/complete`, {
      status: 'succeeded',
      result: { answered: true },
    })
    expect(done.status, done.text).toBe(200)
    expect(done.body).toMatchObject({ status: 'succeeded', result: { answered: true } })
    expect((await e.api.get(`/v1/runs/${run.id}`)).body.status).toBe('succeeded')

    // The run is over, and so is its token.
    expect((await agentApi.get(`/v1/runs/${run.id}`)).status).toBe(401)
    expect((await agentApi.run('trello.get_boards', e.integrationId, {})).status).toBe(401)
    expect((await agentApi.post(`/v1/runs/${run.id}/complete`, { status: 'failed' })).status).toBe(401)
  })

  it('refuses hostile completion bodies with 400 naming the field, and leaves the run running', async () => {
    const agent = await externalAgent(e.api)
    const { run, deliveries } = await deliveredRun(e.api, agent.id)
    const agentApi = client(e.stack, JSON.parse(deliveries[0].body).run_token)
    const cases: Array<[unknown, string]> = [
      [{}, 'status'],
      [{ status: 'done' }, 'status'],
      [{ status: 42 }, 'status'],
      [{ status: 'failed', error: 'it broke' }, 'error'],
      [{ status: 'failed', error: { message: 7 } }, 'error.message'],
      [{ status: 'failed', error: { message: 'x'.repeat(4001) } }, 'error.message'],
      // Undeclared fields: before issue 22 these finished the run without a word about them.
      [{ status: 'succeeded', results: { ticket: 1 } }, 'results'],
      [{ status: 'failed', error: { message: 'm', code: 'x' } }, 'error.code'],
    ]
    for (const [body, field] of cases) {
      const res = await agentApi.post(`/v1/runs/${run.id}/complete`, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(
        res.body.errors.map((x: any) => x.field),
        JSON.stringify(body),
      ).toContain(field)
      expect(res.text).not.toContain('syr_')
    }
    for (const raw of ['[]', 'null', '"succeeded"', '{"status":']) {
      const res = await agentApi.call('POST', `/v1/runs/${run.id}/complete`, raw)
      expect(res.status, raw).toBe(400)
    }
    expect((await e.api.get(`/v1/runs/${run.id}`)).body.status).toBe('running')
    const failed = await agentApi.post(`/v1/runs/${run.id}/complete`, {
      status: 'failed',
      error: { message: 'the model gave up' },
    })
    expect(failed.body).toMatchObject({
      status: 'failed',
      error: { code: 'agent_failed', message: 'the model gave up' },
    })
  })

  it("a run token reads and completes its own run only: another run, or another user's, is 404", async () => {
    const mine = await externalAgent(e.api)
    const first = await deliveredRun(e.api, mine.id)
    const second = await deliveredRun(e.api, mine.id)
    const firstToken = client(e.stack, JSON.parse(first.deliveries[0].body).run_token)

    const other = await e.stack.createUser()
    const otherApi = client(e.stack, other.apiKey)
    const theirs = await externalAgent(otherApi)
    const theirRun = await deliveredRun(otherApi, theirs.id)
    const theirToken = client(e.stack, JSON.parse(theirRun.deliveries[0].body).run_token)

    expect((await firstToken.get(`/v1/runs/${second.run.id}`)).status).toBe(404)
    expect(
      (await firstToken.post(`/v1/runs/${second.run.id}/complete`, { status: 'succeeded' })).status,
    ).toBe(404)
    expect((await theirToken.get(`/v1/runs/${first.run.id}`)).status).toBe(404)
    expect((await theirToken.post(`/v1/runs/${first.run.id}/complete`, { status: 'succeeded' })).status).toBe(
      404,
    )
    expect((await firstToken.get(`/v1/runs/${theirRun.run.id}`)).status).toBe(404)
    // Nor does it reach the other user's integrations.
    expect((await theirToken.run('trello.get_boards', e.integrationId, {})).status).toBe(404)
    for (const id of [first.run.id, second.run.id])
      expect((await e.api.get(`/v1/runs/${id}`)).body.status).toBe('running')
    expect((await otherApi.get(`/v1/runs/${theirRun.run.id}`)).body.status).toBe('running')
  })

  it('a run cancelled while its delivery is in flight ends cancelled, and its token dies', async () => {
    const agent = await externalAgent(e.api)
    const held = receiver.holdNext()
    const started = (await e.api.post(`/v1/agents/${agent.id}/runs`, { inputs: {} })).body
    const delivery = await held.delivery
    const cancel = await e.api.post(`/v1/runs/${started.id}/cancel`)
    expect(cancel.status, cancel.text).toBe(200)
    held.reply(200)
    const run = await waitForRunState(e.api, started.id, isFinished)
    expect(run.status).toBe('cancelled')
    expect(run.timeline.find((s: any) => s.kind === 'delivery').status).toBe('succeeded')
    const agentApi = client(e.stack, JSON.parse(delivery.body).run_token)
    expect((await agentApi.run('trello.get_boards', e.integrationId, {})).status).toBe(401)
    expect((await agentApi.post(`/v1/runs/${started.id}/complete`, { status: 'succeeded' })).status).toBe(401)
  })

  it('an agent that reports the run finished before answering its delivery is not delivered again', async () => {
    const agent = await externalAgent(e.api)
    const held = receiver.holdNext()
    const started = (await e.api.post(`/v1/agents/${agent.id}/runs`, { inputs: {} })).body
    const delivery = await held.delivery
    const agentApi = client(e.stack, JSON.parse(delivery.body).run_token)
    expect(
      (
        await agentApi.post(`/v1/runs/${started.id}/complete`, {
          status: 'succeeded',
          result: { early: true },
        })
      ).status,
    ).toBe(200)
    held.reply(500) // then it stumbles over its own answer
    const run = await waitForRunState(e.api, started.id, (r) => {
      const entry = r.timeline.find((s: any) => s.kind === 'delivery')
      return entry?.status !== 'running' && entry?.attempts.length > 0
    })
    expect(run).toMatchObject({ status: 'succeeded', result: { early: true } })
    const entry = run.timeline.find((s: any) => s.kind === 'delivery')
    expect(entry.attempts).toHaveLength(1)
    expect(entry.attempts[0].retry_in_ms).toBeUndefined() // no retry is promised that will not come
    // Well past the (50 ms) backoff, nothing more arrived.
    await waitForRunState(
      e.api,
      (await e.api.post(`/v1/agents/${agent.id}/runs`, { inputs: {} })).body.id,
      (r) => r.timeline?.some((s: any) => s.kind === 'delivery' && s.status !== 'running'),
    )
    expect(receiver.deliveries.get(started.id)).toHaveLength(1)
  })

  it('tool calls an agent makes at once all land on the timeline, each in its own place', async () => {
    const agent = await externalAgent(e.api)
    const { run, deliveries } = await deliveredRun(e.api, agent.id)
    const agentApi = client(e.stack, JSON.parse(deliveries[0].body).run_token)
    const CALLS = 16
    const answers = await Promise.all(
      Array.from({ length: CALLS }, () => agentApi.run('trello.get_boards', e.integrationId, {})),
    )
    expect(answers.map((a) => a.status)).toEqual(Array(CALLS).fill(200))
    const timeline = (await e.api.get(`/v1/runs/${run.id}`)).body.timeline
    const calls = timeline.filter((s: any) => s.kind === 'tool_call')
    expect(calls).toHaveLength(CALLS)
    expect(new Set(timeline.map((s: any) => s.seq)).size).toBe(timeline.length)
    expect(calls.every((c: any) => c.status === 'succeeded' && c.attempts.length === 1)).toBe(true)
  })
})

describe.each(STORES)(
  'an external agent that reports back while its delivery waits for a retry, on $name',
  ({ open }) => {
    let e: EngineStack
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    // A minute before the next delivery: the run sits in the queue meanwhile.
    beforeAll(async () => {
      e = await startEngineStack(await open('extwait'), { backoff: { deliveryMs: [60_000] } })
      receiver = await startReceiver()
    })
    afterAll(async () => {
      await e?.close()
      await receiver?.close()
    })

    it('ends the delivery entry with the run, promising no retry', async () => {
      const created = await e.api.post('/v1/agents', {
        name: 'Slow to answer',
        kind: 'external',
        external: { url: receiver.url },
      })
      receiver.answer(500)
      const runId = (await e.api.post(`/v1/agents/${created.body.id}/runs`, { inputs: {} })).body.id
      await waitForRunState(
        e.api,
        runId,
        (r) => r.status === 'queued' && r.timeline?.[0]?.attempts?.length === 1,
      )
      const token = JSON.parse(receiver.deliveries.get(runId)![0].body).run_token
      const done = await client(e.stack, token).post(`/v1/runs/${runId}/complete`, { status: 'succeeded' })
      expect(done.status, done.text).toBe(200)
      const entry = done.body.timeline.find((s: any) => s.kind === 'delivery')
      expect(entry.status).not.toBe('running')
      expect(entry.attempts).toHaveLength(1)
      expect(entry.attempts[0].retry_in_ms).toBeUndefined()
    })

    it('a cancel while the delivery waits ends the run and its delivery entry at once', async () => {
      const created = await e.api.post('/v1/agents', {
        name: 'Cancelled while waiting',
        kind: 'external',
        external: { url: receiver.url },
      })
      receiver.answer(500)
      const runId = (await e.api.post(`/v1/agents/${created.body.id}/runs`, { inputs: {} })).body.id
      await waitForRunState(
        e.api,
        runId,
        (r) => r.status === 'queued' && r.timeline?.[0]?.attempts?.length === 1,
      )
      const cancelled = await e.api.post(`/v1/runs/${runId}/cancel`)
      expect(cancelled.body.status).toBe('cancelled')
      expect(cancelled.body.timeline[0]).toMatchObject({ status: 'failed', error: { code: 'cancelled' } })
      const token = JSON.parse(receiver.deliveries.get(runId)![0].body).run_token
      expect((await client(e.stack, token).get(`/v1/runs/${runId}`)).status).toBe(401)
    })
  },
)

// docs/security.md, "Deliveries to external agents": where SWITCHYARD_AGENT_NETWORKS=public (the
// production default), an agent's address on the service's own machine or network is never
// contacted, whether written as an address or as a name that resolves to one.
describe('an agent address outside public networks is refused, and never contacted', () => {
  let e: EngineStack
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  beforeAll(async () => {
    e = await startEngineStack(await STORES[0]!.open('networks'), { config: { agentNetworks: 'public' } })
    receiver = await startReceiver()
  })
  afterAll(async () => {
    await e?.close()
    await receiver?.close()
  })

  it.each([
    ['a loopback address', 'http://127.0.0.1:8080/runs', '127.0.0.1'],
    ['localhost', 'http://localhost:8080/runs', 'localhost'],
    ['localhost in capitals, with its root dot', 'http://LOCALHOST.:8080/runs', 'localhost'],
    ['a name under localhost', 'http://agent.localhost/runs', 'agent.localhost'],
    ['IPv6 loopback', 'http://[::1]:8080/runs', '::1'],
    ['IPv4 loopback written as IPv6', 'http://[::ffff:127.0.0.1]/runs', '::ffff:7f00:1'],
    ['loopback written as one number', 'http://2130706433/runs', '127.0.0.1'],
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['a private network address', 'http://10.0.0.7/runs', '10.0.0.7'],
  ])('saving an agent at %s is refused with 400 naming external.url', async (_name, url, host) => {
    const created = await e.api.post('/v1/agents', { name: 'Inside', kind: 'external', external: { url } })
    expect(created.status, created.text).toBe(400)
    expect(created.body.errors).toEqual([
      { field: 'external.url', message: expect.stringContaining(`${host}`) },
    ])
    expect(created.body.errors[0].message).toMatch(/not a public address.*SWITCHYARD_AGENT_NETWORKS=any/)
  })

  /** An agent saved while every network was allowed, now at `url`: the operator has since chosen public. */
  async function agentSavedEarlierAt(url: string): Promise<string> {
    const created = await e.api.post('/v1/agents', {
      name: `Earlier ${Math.random()}`,
      kind: 'external',
      external: { url: 'https://agent.example.com/runs' },
    })
    expect(created.status, created.text).toBe(201)
    const db = e.stack.services.store.db
    const saved = await db
      .selectFrom('agent_versions')
      .select('definition')
      .where('agent_id', '=', created.body.id)
      .executeTakeFirstOrThrow()
    // Saved as a new version, as an instance with the earlier rules would have: a saved version never
    // changes, and this instance keeps the first one it has read.
    const definition = { ...(saved.definition as object), external: { url } }
    await db
      .insertInto('agent_versions')
      .values({ agent_id: created.body.id, version: 2, definition: JSON.stringify(definition) })
      .execute()
    await db.updateTable('agents').set({ current_version: 2 }).where('id', '=', created.body.id).execute()
    return created.body.id
  }

  it.each([
    [
      'a loopback address',
      (port: string) => `http://127.0.0.1:${port}/runs`,
      /127\.0\.0\.1 is not a public address/,
    ],
    [
      'a name that resolves to loopback',
      (port: string) => `http://localhost:${port}/runs`,
      /localhost resolves to (127\.0\.0\.1|::1), which is not a public address/,
    ],
    ['IPv6 loopback', (port: string) => `http://[::1]:${port}/runs`, /::1 is not a public address/],
    [
      'the cloud metadata address',
      () => 'http://169.254.169.254/latest/meta-data/',
      /169\.254\.169\.254 is not a public address/,
    ],
  ])(
    'a run of an agent saved earlier at %s fails at once as forbidden, and nothing is delivered',
    async (_name, address, message) => {
      const port = new URL(receiver.url).port
      const agentId = await agentSavedEarlierAt(address(port))
      const started = await e.api.post(`/v1/agents/${agentId}/runs`, { inputs: {} })
      const run = await waitForRunState(e.api, started.body.id, isFinished)
      expect(run.status).toBe('failed')
      expect(run.error.code).toBe('forbidden')
      expect(run.error.message).toMatch(message)
      expect(run.error.message).toMatch(/SWITCHYARD_AGENT_NETWORKS=any/)
      const delivery = run.timeline.find((s: any) => s.kind === 'delivery')
      expect(delivery.attempts).toHaveLength(1) // refused once, not retried for a day
      expect(receiver.deliveries.get(run.id)).toBeUndefined()
    },
  )
})
