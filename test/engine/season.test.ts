import { execFile } from 'node:child_process'
import { createHmac } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from '../helpers/test-stack.ts'
import { connectZendesk } from '../helpers/connect.ts'
import { connectTrelloOAuth } from '../helpers/connect-trello.ts'
import { STORES, waitForRunState, type FreshStore } from '../helpers/engine.ts'
import { client } from '../helpers/stack.ts'
import { CARD_MAPPING, commentingAgent, freshBoard, sandboxHooks, waitFor } from '../helpers/trello-engine.ts'
import { connectVercel, VERCEL } from '../helpers/vercel.ts'
import { remoteWebhooks } from '../helpers/zendesk-triggers.ts'

const BIN = path.resolve(import.meta.dirname, '../../bin/switchyard.js')

// Issue 22, "Done when": a season in one user's life. A member connected on all three platforms with
// active triggers is downgraded, disconnected, reconnected and removed; after each stage the
// sandboxes' webhook lists, the subscriptions' states and whether the user's API key, web session
// and run token work are exactly what docs/triggers.md ("When an integration, a plan or a user
// goes") and docs/security.md ("Removing a user") say.

/** An external agent's address: answers 200 and keeps each run's token. */
async function startReceiver() {
  const tokens = new Map<string, string>()
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString())
      tokens.set(String(req.headers['webhook-id']), body.run_token)
      res.end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/runs`,
    tokens,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

const VERCEL_SECRET = 'season-vercel-secret-0123456789'

describe.each(STORES)('a season: downgraded, disconnected, reconnected, removed, on $name', ({ open }) => {
  let store: FreshStore
  let stack: TestStack
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let admin: ReturnType<typeof client>
  let member: { id: string; apiKey: string }
  let api: ReturnType<typeof client>
  let cookie: string
  let runToken: string
  const ints = { trello: '', zendesk: '', vercel: '' }
  const subs = { trello: '', zendesk: '', vercel: '' }
  let board: string
  let vercelAddress: string

  beforeAll(async () => {
    store = await open('season')
    stack = await startTestStack({ databaseUrl: store.databaseUrl })
    receiver = await startReceiver()
    admin = client(stack, stack.apiKey)
    member = await stack.createUser('enterprise')
    api = client(stack, member.apiKey)
    const as = { url: stack.url, apiKey: member.apiKey, sandboxUrl: stack.sandboxUrl }
    ints.trello = (await connectTrelloOAuth(as)).integrationId!
    ints.zendesk = (await connectZendesk(as)).integrationId!
    ints.vercel = (await connectVercel(as)).integrationId!
    for (const id of Object.values(ints)) expect(id).toMatch(/^int_/)

    const signIn = await fetch(`${stack.url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: member.apiKey }),
    })
    expect(signIn.status).toBe(204)
    cookie = signIn.headers.getSetCookie()[0].split(';')[0]

    // A run of an external agent in hand: its token works until the run ends (or its user goes).
    const external = await api.post('/v1/agents', {
      name: 'Elsewhere',
      kind: 'external',
      external: { url: receiver.url },
    })
    expect(external.status, external.text).toBe(201)
    const run = await api.post(`/v1/agents/${external.body.id}/runs`, { inputs: {} })
    expect(run.status, run.text).toBe(201)
    await waitForRunState(api, run.body.id, (r) =>
      r.timeline?.some((s: any) => s.kind === 'delivery' && s.status === 'succeeded'),
    )
    runToken = receiver.tokens.get(run.body.id)!
    expect(runToken).toMatch(/^syr_/)

    // Three triggers, all active: a board at Trello, tickets at Zendesk (Enterprise only), deployments at Vercel.
    board = (await freshBoard(stack)).id
    const trelloAgent = await api.post('/v1/agents', commentingAgent(ints.trello))
    subs.trello = await activeSub(trelloAgent.body.id, {
      trigger: 'trello.new_card',
      integration: ints.trello,
      config: { board_ids: [board] },
      mapping: CARD_MAPPING,
    })
    const ticketAgent = await api.post('/v1/agents', {
      name: 'Tickets',
      inputs: [{ name: 'ticket_id', type: 'number', required: true }],
      kind: 'steps',
      steps: [
        {
          key: 'look',
          tool: 'zendesk.get_ticket',
          integration: ints.zendesk,
          input: { ticket_id: '{{ inputs.ticket_id }}' },
        },
      ],
      output: {},
    })
    subs.zendesk = await activeSub(ticketAgent.body.id, {
      trigger: 'zendesk.new_ticket',
      integration: ints.zendesk,
      mapping: { ticket_id: '{{ ticket.id }}' },
    })
    const deployAgent = await api.post('/v1/agents', {
      name: 'Deploys',
      inputs: [{ name: 'url', type: 'string', required: true }],
      kind: 'steps',
      steps: [
        { key: 'list', tool: 'vercel.list_deployments', integration: ints.vercel, input: { limit: 1 } },
      ],
      output: {},
    })
    subs.vercel = await activeSub(deployAgent.body.id, {
      trigger: 'vercel.deployment_succeeded',
      integration: ints.vercel,
      mapping: { url: '{{ deployment.url }}' },
      webhook_secret: VERCEL_SECRET,
    })
    vercelAddress = (await api.get(`/v1/subscriptions/${subs.vercel}`)).body.webhook_address
  }, 300_000)
  afterAll(async () => {
    await stack?.close()
    await receiver?.close()
    await store?.drop()
  })

  async function activeSub(agentId: string, body: Record<string, unknown>): Promise<string> {
    const created = await api.post(`/v1/agents/${agentId}/subscriptions`, body)
    expect(created.status, created.text).toBe(201)
    const active = await api.post(`/v1/subscriptions/${created.body.id}/activate`)
    expect(active.status, active.text).toBe(200)
    return created.body.id
  }

  /** What the person sees of each subscription: its status, the reason it was paused and the verdict. */
  async function states() {
    const out: Record<string, [string, string | null, string]> = {}
    for (const [platform, id] of Object.entries(subs)) {
      const res = await api.get(`/v1/subscriptions/${id}`)
      expect(res.status, res.text).toBe(200)
      out[platform] = [res.body.status, res.body.paused_reason, res.body.health.verdict]
    }
    return out
  }

  /** The webhooks the platforms hold for this user: Trello's on the board, Zendesk's to our address. */
  async function platformHooks() {
    return {
      trello: (await sandboxHooks(stack, board)).length,
      // Any webhook sending to this stack: one made again after a resume has a new address.
      zendesk: (await remoteWebhooks(stack)).filter((w) => w.endpoint.startsWith(`${stack.url}/hooks/`))
        .length,
    }
  }

  /** Whether the member's API key, web session and run token are accepted. */
  async function credentials() {
    const key = (await api.get('/v1/me')).status
    const session = (await fetch(`${stack.url}/v1/me`, { headers: { cookie } })).status
    const run = (await client(stack, runToken).get('/v1/integrations')).status
    return { key, session, run }
  }

  /** A Vercel delivery signed with the pasted secret, as Vercel signs it. */
  async function vercelDelivery(): Promise<number> {
    const body = JSON.stringify({
      id: `evt_${Math.random().toString(36).slice(2)}`,
      type: 'deployment.succeeded',
      createdAt: Date.now(),
      payload: {
        user: { id: VERCEL.user.id },
        deployment: { id: 'dpl_Season', name: 'ada-blog', url: 'ada-blog.vercel.app', meta: {} },
        links: {
          deployment: 'https://vercel.com/ada/ada-blog/Season',
          project: 'https://vercel.com/ada/ada-blog',
        },
        project: { id: VERCEL.personalProject.id },
        target: 'production',
      },
    })
    const res = await fetch(vercelAddress, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-vercel-signature': createHmac('sha1', VERCEL_SECRET).update(body).digest('hex'),
      },
      body,
    })
    return res.status
  }

  const working = { key: 200, session: 200, run: 200 }

  it('1. connected: every trigger active and healthy, a webhook at Trello and at Zendesk', async () => {
    expect(await states()).toEqual({
      trello: ['active', null, 'healthy'],
      zendesk: ['active', null, 'healthy'],
      vercel: ['active', null, 'healthy'],
    })
    expect(await platformHooks()).toEqual({ trello: 1, zendesk: 1 })
    expect(await credentials()).toEqual(working)
    expect(await vercelDelivery()).toBe(200)
  })

  it('2. downgraded to free: the Enterprise-only Zendesk trigger is paused and its webhook removed', async () => {
    const changed = await admin.call('PATCH', `/v1/users/${member.id}`, { plan: 'free' })
    expect(changed.status, changed.text).toBe(200)
    expect(await states()).toEqual({
      trello: ['active', null, 'healthy'],
      zendesk: ['paused', 'plan_required', 'paused'],
      vercel: ['active', null, 'healthy'],
    })
    const health = (await api.get(`/v1/subscriptions/${subs.zendesk}/health`)).body
    expect(health.verdict).toBe('paused')
    expect(health.reasons[0]).toMatchObject({ code: 'plan_required' })
    expect(await platformHooks()).toEqual({ trello: 1, zendesk: 0 })
    expect(await credentials()).toEqual(working)
  })

  it('3. Trello disconnected: the confirmation names what stops; its trigger is paused and its webhook removed first', async () => {
    const usage = await api.get(`/v1/integrations/${ints.trello}/usage`)
    expect(usage.status, usage.text).toBe(200)
    expect(usage.body).toMatchObject({ active_triggers: 1, agent_steps: 1 })
    expect(usage.body.summary).toMatch(/^1 active trigger and 1 agent step use /)
    const disconnected = await api.post(`/v1/integrations/${ints.trello}/disconnect`)
    expect(disconnected.status, disconnected.text).toBe(200)
    expect(disconnected.body).toMatchObject({ status: 'disconnected', paused_triggers: 1 })
    expect(await states()).toEqual({
      trello: ['paused', 'integration_disconnected', 'paused'],
      zendesk: ['paused', 'plan_required', 'paused'],
      vercel: ['active', null, 'healthy'],
    })
    expect(await platformHooks()).toEqual({ trello: 0, zendesk: 0 })
    expect(await credentials()).toEqual(working)
  })

  it('4. reconnected: the same account offers to resume, and resuming makes the webhook again', async () => {
    const as = { url: stack.url, apiKey: member.apiKey, sandboxUrl: stack.sandboxUrl }
    expect((await connectTrelloOAuth(as)).integrationId).toBe(ints.trello)
    const offered = await api.get(`/v1/integrations/${ints.trello}`)
    expect(offered.body).toMatchObject({ status: 'active', paused_triggers: 1 })
    const resumed = await api.post(`/v1/integrations/${ints.trello}/resume`)
    expect(resumed.status, resumed.text).toBe(200)
    expect(resumed.body).toEqual({ resumed: [subs.trello], failed: [] })
    expect(await states()).toEqual({
      trello: ['active', null, 'healthy'],
      zendesk: ['paused', 'plan_required', 'paused'],
      vercel: ['active', null, 'healthy'],
    })
    expect(await platformHooks()).toEqual({ trello: 1, zendesk: 0 })
    expect(await credentials()).toEqual(working)
  })

  it('4b. upgraded again: what the lowered plan paused is offered for resume (REST, CLI), and resuming makes its webhook again', async () => {
    expect((await api.get('/v1/subscriptions')).body.plan_resumable).toEqual([])
    const changed = await admin.call('PATCH', `/v1/users/${member.id}`, { plan: 'enterprise' })
    expect(changed.status, changed.text).toBe(200)
    // Not resumed behind the user's back: offered, in the list the CLI and the Triggers tab read.
    expect((await api.get('/v1/subscriptions')).body.plan_resumable).toEqual([subs.zendesk])
    expect((await api.get('/v1/subscriptions?agent_id=none')).body.plan_resumable).toEqual([])
    const cli = await promisify(execFile)(process.execPath, [BIN, 'subscriptions', 'resume', '--plan'], {
      env: { ...process.env, SWITCHYARD_URL: stack.url, SWITCHYARD_API_KEY: member.apiKey },
    })
    expect(cli.stdout).toContain(`Resumed 1 trigger(s): ${subs.zendesk}`)
    expect(await states()).toEqual({
      trello: ['active', null, 'healthy'],
      zendesk: ['active', null, 'healthy'],
      vercel: ['active', null, 'healthy'],
    })
    expect(await platformHooks()).toEqual({ trello: 1, zendesk: 1 })
    expect((await api.post('/v1/subscriptions/resume')).body).toEqual({ resumed: [], failed: [] })
    expect(await credentials()).toEqual(working)
  })

  it('5. removed: one answer, no webhook left at any platform, nothing of theirs works, their addresses answer 410', async () => {
    const [trelloHook] = await stack.services.webhooks.forSubscription(subs.trello)
    // Vercel keeps delivering while the user is removed: each delivery is stored or answered 410,
    // never a 5xx, including one routed just before the removal committed and stored just after.
    let removing = true
    const answers: number[] = []
    const deliveries = Array.from({ length: 4 }, async () => {
      while (removing) answers.push(await vercelDelivery())
    })
    const removed = await admin.delete(`/v1/users/${member.id}`)
    removing = false
    await Promise.all(deliveries)
    expect(answers.length).toBeGreaterThan(0)
    expect(answers.filter((status) => status !== 200 && status !== 410)).toEqual([])
    expect(removed.status, removed.text).toBe(200)
    expect(removed.body).toMatchObject({ integrations_disconnected: 3, webhooks_left_at_platforms: 0 })
    expect((await admin.get(`/v1/users/${member.id}`)).status).toBe(404)
    expect(await platformHooks()).toEqual({ trello: 0, zendesk: 0 })
    expect(await credentials()).toEqual({ key: 401, session: 401, run: 401 })
    for (const table of ['subscriptions', 'webhooks', 'integrations', 'agents', 'runs'] as const) {
      const rows = await stack.services.store.db
        .selectFrom(table)
        .select('id')
        .where('user_id', '=', member.id)
        .execute()
      expect(rows, table).toEqual([])
    }
    expect(await vercelDelivery()).toBe(410)
    const trelloAddress = stack.services.webhooks.addressOf(trelloHook.token)
    expect((await fetch(trelloAddress, { method: 'POST', body: '{}' })).status).toBe(410)
    // An address never known stays 404 (docs/triggers.md, "Addresses").
    expect((await fetch(`${stack.url}/hooks/${'n'.repeat(32)}`, { method: 'POST', body: '{}' })).status).toBe(
      404,
    )
    await waitFor('the user gone from the list', async () =>
      (await admin.get('/v1/users')).body.users.every((u: any) => u.id !== member.id),
    )
  })
})
