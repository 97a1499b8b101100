import { createHmac } from 'node:crypto'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SEED, vercelSignature } from './index.ts'
import {
  call,
  parseForm,
  postForm,
  startReceiver,
  startTestSandbox,
  type TestSandbox,
} from './test-support.ts'

let sandbox: TestSandbox
let token: string
let teamToken: string
let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
beforeEach(async () => {
  await sandbox.control('/reset', { method: 'POST' })
  await sandbox.control('/deliveries/settings', { method: 'PUT', body: { retry_delays_ms: [20, 40, 80] } })
  token = await sandbox.token()
  teamToken = await sandbox.token('ada', SEED.team.id)
})
afterEach(async () => {
  await receiver?.close()
  receiver = undefined
})
afterAll(() => sandbox.close())

const settled = async () => (await sandbox.control('/deliveries?wait=true&timeout_ms=5000')).body

describe('signature', () => {
  it('x-vercel-signature is hex HMAC-SHA1 of the raw body (fixed vector)', () => {
    const body = '{"id":"evt_1","type":"deployment.created"}'
    expect(vercelSignature('whsec_test_vector', body)).toBe('281492badc5226086864e8764982e5465c704b23')
  })
})

describe('/v1/webhooks', () => {
  it('creates (secret shown once), lists (bare array, no secret), shows, deletes (204)', async () => {
    const created = await call(`${sandbox.url}/v1/webhooks`, {
      token,
      json: {
        url: 'https://example.test/hook',
        events: ['deployment.created'],
        projectIds: [SEED.personalProject.id],
      },
    })
    expect(created.status).toBe(200)
    expect(created.body).toMatchObject({
      id: expect.any(String),
      url: 'https://example.test/hook',
      events: ['deployment.created'],
      ownerId: SEED.user.id,
      projectIds: [SEED.personalProject.id],
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
      secret: expect.any(String),
    })
    const list = await call(`${sandbox.url}/v1/webhooks`, { token })
    expect(Array.isArray(list.body)).toBe(true)
    expect(list.body).toHaveLength(1)
    expect(list.body[0]).not.toHaveProperty('secret')
    const shown = await call(`${sandbox.url}/v1/webhooks/${created.body.id}`, { token })
    expect(shown.body.id).toBe(created.body.id)
    expect(shown.body).not.toHaveProperty('secret')
    expect(
      (
        await call(`${sandbox.url}/v1/webhooks/${created.body.id}?teamId=${SEED.team.id}`, {
          token: teamToken,
        })
      ).status,
    ).toBe(404)
    expect(
      (await call(`${sandbox.url}/v1/webhooks/${created.body.id}`, { token, method: 'DELETE' })).status,
    ).toBe(204)
    expect((await call(`${sandbox.url}/v1/webhooks/${created.body.id}`, { token })).status).toBe(404)
  })

  it('rejects a bad url, events or projectIds with 400 naming the field', async () => {
    for (const [body, field] of [
      [{ events: ['deployment.created'] }, '`url`'],
      [{ url: 'ftp://x', events: ['deployment.created'] }, '`url`'],
      [{ url: 'https://x.test', events: [] }, '`events`'],
      [{ url: 'https://x.test', events: ['deployment.exploded'] }, '`events`'],
      [
        { url: 'https://x.test', events: ['deployment.created'], projectIds: [SEED.teamProject.id] },
        '`projectIds`',
      ],
    ] as const) {
      const r = await call(`${sandbox.url}/v1/webhooks`, { token, json: body })
      expect(r.status, JSON.stringify(body)).toBe(400)
      expect(r.body.error.message).toContain(field)
    }
  })
})

describe('delivery', () => {
  it('delivers deployment.created / succeeded with the documented payload and a valid signature', async () => {
    receiver = await startReceiver([200])
    const hook = (
      await call(`${sandbox.url}/v1/webhooks?teamId=${SEED.team.id}`, {
        token: teamToken,
        json: {
          url: receiver.url,
          events: ['deployment.created', 'deployment.succeeded'],
          projectIds: [SEED.teamProject.id],
        },
      })
    ).body
    const d = (
      await call(`${sandbox.url}/v13/deployments?teamId=${SEED.team.id}`, {
        token: teamToken,
        json: {
          name: 'acme-web',
          target: 'production',
          gitSource: { type: 'github', repoId: 1, ref: 'main' },
        },
      })
    ).body
    // Personal deployments do not reach the team's webhook.
    await call(`${sandbox.url}/v13/deployments`, { token, json: { name: 'ada-blog' } })
    await sandbox.advance(10_000)
    const result = await settled()
    expect(result.settled).toBe(true)
    expect(result.deliveries.map((x: { type: string }) => x.type)).toEqual([
      'deployment.created',
      'deployment.succeeded',
    ])
    expect(receiver.received).toHaveLength(2)
    const [first, second] = receiver.received
    const event = JSON.parse(first!.body)
    expect(first!.headers['x-vercel-signature']).toBe(
      createHmac('sha1', hook.secret).update(first!.body).digest('hex'),
    )
    expect(first!.headers['content-type']).toBe('application/json')
    expect(event).toMatchObject({
      id: expect.any(String),
      type: 'deployment.created',
      createdAt: expect.any(Number),
      region: 'iad1',
      payload: {
        team: { id: SEED.team.id },
        user: { id: SEED.user.id },
        deployment: { id: d.id, name: 'acme-web', url: d.url, meta: { githubCommitRef: 'main' } },
        links: { deployment: d.inspectorUrl, project: 'https://vercel.com/acme/acme-web' },
        target: 'production',
        project: { id: SEED.teamProject.id },
        plan: 'pro',
        regions: ['iad1'],
      },
    })
    expect(JSON.parse(second!.body).type).toBe('deployment.succeeded')
  })

  it('emits deployment.error and deployment.canceled; personal webhooks carry team null', async () => {
    receiver = await startReceiver([200])
    await call(`${sandbox.url}/v1/webhooks`, {
      token,
      json: { url: receiver.url, events: ['deployment.error', 'deployment.canceled'] },
    })
    await call(`${sandbox.url}/v13/deployments`, {
      token,
      json: { name: 'ada-blog', meta: { sandboxOutcome: 'error' } },
    })
    const toCancel = (await call(`${sandbox.url}/v13/deployments`, { token, json: { name: 'ada-blog' } }))
      .body
    await call(`${sandbox.url}/v12/deployments/${toCancel.id}/cancel`, { token, method: 'PATCH' })
    await sandbox.advance(10_000)
    await settled()
    const events = receiver.received.map((r) => JSON.parse(r.body))
    expect(events.map((e) => e.type).sort()).toEqual(['deployment.canceled', 'deployment.error'])
    expect(events[0].payload.team).toBeNull()
  })

  it('the control API ends a build now, as READY or ERROR, with the events the timeline sends', async () => {
    receiver = await startReceiver([200])
    await call(`${sandbox.url}/v1/webhooks`, {
      token,
      json: { url: receiver.url, events: ['deployment.created', 'deployment.succeeded', 'deployment.error'] },
    })
    const ok = (await call(`${sandbox.url}/v13/deployments`, { token, json: { name: 'ada-blog' } })).body
    const bad = (await call(`${sandbox.url}/v13/deployments`, { token, json: { name: 'ada-blog' } })).body
    const finished = await sandbox.control(`/deployments/${ok.id}/finish`, { body: { state: 'READY' } })
    expect(finished.status).toBe(200)
    expect(finished.body).toMatchObject({ id: ok.id, readyState: 'READY' })
    expect(
      (await sandbox.control(`/deployments/${bad.id}/finish`, { body: { state: 'error' } })).body.readyState,
    ).toBe('ERROR')
    expect(
      (await sandbox.control(`/deployments/${bad.id}/finish`, { body: { state: 'READY' } })).status,
    ).toBe(409)
    expect(
      (await sandbox.control(`/deployments/${ok.id}/finish`, { body: { state: 'CANCELED' } })).status,
    ).toBe(400)
    expect((await sandbox.control('/deployments/dpl_nope/finish', { body: { state: 'READY' } })).status).toBe(
      404,
    )
    // The clock moving on later changes nothing: a finished deployment stays as it ended.
    await sandbox.advance(10_000)
    await settled()
    const events = receiver.received.map(
      (r) => JSON.parse(r.body) as { type: string; payload: { deployment: { id: string } } },
    )
    expect(events.map((e) => `${e.type} ${e.payload.deployment.id === ok.id ? 'ok' : 'bad'}`).sort()).toEqual(
      ['deployment.created bad', 'deployment.created ok', 'deployment.error bad', 'deployment.succeeded ok'],
    )
    expect((await call(`${sandbox.url}/v13/deployments/${bad.id}`, { token })).body).toMatchObject({
      readyState: 'ERROR',
      errorCode: 'BUILD_FAILED',
    })
  })

  it('retries non-2xx and connection errors with backoff, then records the outcome', async () => {
    receiver = await startReceiver([500, 503, 200])
    const hook = (
      await call(`${sandbox.url}/v1/webhooks`, {
        token,
        json: { url: receiver.url, events: ['deployment.created'] },
      })
    ).body
    await call(`${sandbox.url}/v13/deployments`, { token, json: { name: 'ada-blog' } })
    const result = await settled()
    const [delivery] = result.deliveries
    expect(delivery).toMatchObject({ webhookId: hook.id, type: 'deployment.created', state: 'delivered' })
    expect(delivery.attempts.map((a: { status: number }) => a.status)).toEqual([500, 503, 200])
    expect(new Set(receiver.received.map((r) => JSON.parse(r.body).id)).size).toBe(1)

    // A closed port: every attempt fails, the delivery ends failed after the configured retries.
    const dead = await startReceiver()
    const deadUrl = dead.url
    await dead.close()
    await sandbox.control('/deliveries', { method: 'DELETE' })
    await call(`${sandbox.url}/v1/webhooks`, {
      token,
      json: { url: deadUrl, events: ['deployment.created'] },
    })
    await call(`${sandbox.url}/v13/deployments`, { token, json: { name: 'ada-blog' } })
    const failed = (await settled()).deliveries.find((x: { url: string }) => x.url === deadUrl)
    expect(failed.state).toBe('failed')
    expect(failed.attempts).toHaveLength(4)
    expect(failed.attempts[0]).toMatchObject({ status: null, error: expect.any(String) })
  })
})

describe('project settings page', () => {
  it('requires sign-in, creates a webhook for the project and shows its secret once', async () => {
    receiver = await startReceiver([200])
    const pageUrl = `${sandbox.url}/projects/acme-web/settings/webhooks?teamId=${SEED.team.id}`
    const login = await fetch(pageUrl)
    const loginHtml = await login.text()
    expect(loginHtml).toContain('name="password"')
    const loginForm = parseForm(loginHtml)
    const signed = await postForm(loginForm.action, {
      ...loginForm.fields,
      email: 'ada@vercel.test',
      password: 'sandbox',
    })
    const settingsHtml = await signed.text()
    expect(settingsHtml).toContain('name="url"')
    expect(settingsHtml).toContain('<input type="checkbox" name="events" value="deployment.succeeded">')
    const form = parseForm(settingsHtml)
    const body = new URLSearchParams({ ...form.fields, url: receiver.url })
    body.append('events', 'deployment.created')
    body.append('events', 'deployment.succeeded')
    const created = await postForm(form.action, body)
    expect(created.status).toBe(200)
    const html = await created.text()
    const secret = /<code id="webhook-secret">([^<]+)<\/code>/.exec(html)?.[1]
    const id = /data-webhook-id="([^"]+)"/.exec(html)?.[1]
    expect(secret).toBeTruthy()
    const hook = await call(`${sandbox.url}/v1/webhooks/${id}?teamId=${SEED.team.id}`, { token: teamToken })
    expect(hook.body).toMatchObject({
      url: receiver.url,
      events: ['deployment.created', 'deployment.succeeded'],
      projectIds: [SEED.teamProject.id],
      ownerId: SEED.team.id,
    })
    // Shown once: reloading the page lists the hook without the secret.
    const again = await (
      await fetch(pageUrl, { headers: { cookie: `vercel_sandbox_session=${form.fields.session}` } })
    ).text()
    expect(again).toContain(receiver.url)
    expect(again).not.toContain(secret!)

    await call(`${sandbox.url}/v13/deployments?teamId=${SEED.team.id}`, {
      token: teamToken,
      json: { name: 'acme-web' },
    })
    await settled()
    expect(receiver.received[0]!.headers['x-vercel-signature']).toBe(
      createHmac('sha1', secret!).update(receiver.received[0]!.body).digest('hex'),
    )
  })

  it('an invalid URL re-renders with an error; an unknown project is a 404 page', async () => {
    const loginForm = parseForm(
      await (await fetch(`${sandbox.url}/projects/ada-blog/settings/webhooks`)).text(),
    )
    const form = parseForm(
      await (
        await postForm(loginForm.action, { ...loginForm.fields, email: 'ada', password: 'sandbox' })
      ).text(),
    )
    const bad = await postForm(form.action, { ...form.fields, url: 'nope', events: 'deployment.created' })
    expect(bad.status).toBe(400)
    expect(await bad.text()).toContain('`url`')
    const missing = await fetch(`${sandbox.url}/projects/nope/settings/webhooks`, {
      headers: { cookie: `vercel_sandbox_session=${form.fields.session}` },
    })
    expect(missing.status).toBe(404)
  })
})
