import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { client } from './helpers/stack.ts'
import { connectVercel, VERCEL, vercelControl } from './helpers/vercel.ts'

// The Vercel connector end to end against its sandbox: the install flow, team scope, every tool
// step, the deployment state machine through Cancel, header-driven rate limits.
let stack: TestStack
let personal: string
let team: string
const api = () => client(stack, stack.apiKey)

beforeAll(async () => {
  stack = await startTestStack()
  personal = (await connectVercel(stack)).integrationId!
  team = (await connectVercel(stack, { teamId: VERCEL.team.id })).integrationId!
})
afterAll(async () => {
  await stack?.close()
})

describe('connecting Vercel', () => {
  it('lists a personal account and a team as two integrations, each as name (handle)', async () => {
    expect(personal).toBeDefined()
    expect(team).toBeDefined()
    expect(team).not.toBe(personal)
    expect((await api().get(`/v1/integrations/${personal}`)).body).toMatchObject({
      platform: 'vercel',
      account_name: `${VERCEL.user.name} (${VERCEL.user.username})`,
      status: 'active',
    })
    expect((await api().get(`/v1/integrations/${team}`)).body).toMatchObject({
      account_name: `${VERCEL.team.name} (${VERCEL.team.slug})`,
      fields: { teamId: VERCEL.team.id },
    })
  })

  it('connecting the same team again updates its integration', async () => {
    const again = await connectVercel(stack, { teamId: VERCEL.team.id })
    expect(again.integrationId).toBe(team)
  })

  it('Deny says that nothing was connected, with no troubleshooting rules', async () => {
    const denied = await connectVercel(stack, { decision: 'deny' })
    expect(denied.integrationId).toBeUndefined()
    expect(denied.landing.searchParams.get('code')).toBe('connect_failed')
    expect(denied.landing.searchParams.get('error')).toBe(
      "You chose Deny on Vercel's authorization page, so nothing was connected. Connect again and choose Allow to add the account.",
    )
    expect(denied.landing.searchParams.has('troubleshooting')).toBe(false)
  })

  it('the platform says its authorize page belongs in a pop-up', async () => {
    const { body } = await api().get('/v1/platforms')
    expect(body.platforms.find((p: any) => p.id === 'vercel')).toMatchObject({
      kind: 'deployment',
      authorize_in: 'popup',
    })
  })

  it('in sandbox mode the platform names the sandbox home page, which links each project’s webhook page', async () => {
    const { body } = await api().get('/v1/platforms')
    const home = body.platforms.find((p: any) => p.id === 'vercel').sandbox_home
    expect(home).toBe(`${stack.sandboxUrl}/vercel`)
    const page = await fetch(home)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain(`href="${home}/projects/ada-blog/settings/webhooks"`)
  })
})

describe('Vercel tool steps', () => {
  beforeEach(async () => {
    await vercelControl(stack).rateLimits({ disabled: true })
  })

  it('Create Deployment deploys a branch to an environment with custom settings', async () => {
    const { status, body } = await api().run('vercel.create_deployment', personal, {
      project: VERCEL.personalProject.name,
      branch: 'feature-login',
      environment: 'production',
      settings: { framework: 'nextjs', build_command: 'npm run build' },
      meta: { ticket: 'ZD-42' },
    })
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.output).toMatchObject({
      name: VERCEL.personalProject.name,
      projectId: VERCEL.personalProject.id,
      target: 'production',
      readyState: 'QUEUED',
    })
    expect(body.output.id).toMatch(/^dpl_/)
    expect(body.output.url).not.toMatch(/^https?:/)
    expect(body.output.meta).toMatchObject({ githubCommitRef: 'feature-login', ticket: 'ZD-42' })
  })

  it('a project chosen by its id (as the picker does) deploys under the project name, not the id', async () => {
    const { status, body } = await api().run('vercel.create_deployment', personal, {
      project: VERCEL.personalProject.id,
    })
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.output).toMatchObject({
      name: VERCEL.personalProject.name,
      projectId: VERCEL.personalProject.id,
    })
    expect(body.output.project_created).toBe(false)
    expect(body.summary?.text ?? '').not.toContain(VERCEL.personalProject.id)
  })

  it('a team integration acts in its team: it sees the team project, not the personal one', async () => {
    const teamList = await api().run('vercel.list_deployments', team, {})
    expect(teamList.status).toBe(200)
    expect(new Set(teamList.body.output.deployments.map((d: any) => d.projectId))).toEqual(
      new Set([VERCEL.teamProject.id]),
    )
    const created = await api().run('vercel.create_deployment', team, { project: VERCEL.teamProject.name })
    expect(created.body.output.target).toBeNull()
    const requests = await vercelControl(stack).requests()
    expect(
      requests.filter((r) => r.method === 'POST' && r.path.includes('/v13/deployments')).at(-1)?.query.teamId,
    ).toBe(VERCEL.team.id)
  })

  it('List Deployments filters by project, environment and state, and pages with a cursor', async () => {
    for (let i = 0; i < 3; i++)
      await api().run('vercel.create_deployment', personal, { project: VERCEL.personalProject.name })
    const production = await api().run('vercel.list_deployments', personal, {
      project: VERCEL.personalProject.id,
      environment: 'production',
    })
    for (const d of production.body.output.deployments) expect(d.target).toBe('production')
    const errored = await api().run('vercel.list_deployments', personal, { state: ['ERROR'] })
    expect(errored.body.output.deployments.map((d: any) => d.id)).toContain(
      VERCEL.deployments.personalError.id,
    )
    const page1 = await api().run('vercel.list_deployments', personal, { limit: 2 })
    expect(page1.body.output.deployments).toHaveLength(2)
    expect(page1.body.output.next_cursor).toMatch(/^\d+$/)
    const page2 = await api().run('vercel.list_deployments', personal, {
      limit: 2,
      cursor: page1.body.output.next_cursor,
    })
    const ids = new Set(page1.body.output.deployments.map((d: any) => d.id))
    for (const d of page2.body.output.deployments) expect(ids.has(d.id)).toBe(false)
  })

  describe('Get Deployment: a deployment by id or URL, with its state, creator and metadata', () => {
    const ready = VERCEL.deployments.personalReady
    it.each([
      ['its id', ready.id],
      ['its URL', ready.url],
      ['its URL with scheme and slash', `https://${ready.url}/`],
      ['its URL in capitals', ready.url.toUpperCase()],
    ])('by %s', async (_how, id) => {
      const { status, body } = await api().run('vercel.get_deployment', personal, { id })
      expect(status, JSON.stringify(body)).toBe(200)
      expect(body.output).toMatchObject({
        id: ready.id,
        url: ready.url,
        readyState: 'READY',
        creator: { uid: VERCEL.user.id },
      })
      expect(body.summary.text).toBe('Deployment ada-blog (production, READY)')
    })

    it('a failed deployment says why, and its metadata given at creation comes back', async () => {
      const created = await api().run('vercel.create_deployment', personal, {
        project: VERCEL.personalProject.name,
        meta: { sandboxOutcome: 'error', ticket: 'ZD-7' },
      })
      await vercelControl(stack).advanceClock(11_000)
      const { body } = await api().run('vercel.get_deployment', personal, { id: created.body.output.id })
      expect(body.output).toMatchObject({
        readyState: 'ERROR',
        errorMessage: expect.any(String),
        meta: { ticket: 'ZD-7' },
      })
      expect(body.summary.text).toContain(`: ${body.output.errorMessage}`)
    })

    it("a team integration reads the team's deployments, and not another account's", async () => {
      expect(
        (await api().run('vercel.get_deployment', team, { id: VERCEL.deployments.teamCanceled.id })).body
          .output.readyState,
      ).toBe('CANCELED')
      expect((await api().run('vercel.get_deployment', team, { id: ready.id })).status).toBe(404)
    })

    it.each([
      ['an unknown id', 'dpl_doesNotExist000000000000', 404, 'not_found'],
      ['a project name', 'ada-blog', 400, 'invalid_input'],
      ['a path', '../v2/user', 400, 'invalid_input'],
      ['an empty id', '  ', 400, 'invalid_input'],
    ])('%s (%j) is %d %s', async (_what, id, status, code) => {
      const res = await api().run('vercel.get_deployment', personal, { id })
      expect(res.status).toBe(status)
      expect(res.body.code).toBe(code)
      if (status === 400) expect(res.body.errors[0].field).toBe('input.id')
    })
  })

  describe('Cancel Deployment in each state', () => {
    async function deploymentIn(state: 'QUEUED' | 'BUILDING' | 'READY' | 'ERROR' | 'CANCELED') {
      const created = await api().run('vercel.create_deployment', personal, {
        project: VERCEL.personalProject.name,
        ...(state === 'ERROR' ? { meta: { sandboxOutcome: 'error' } } : {}),
      })
      const id = created.body.output.id
      if (state === 'BUILDING') await vercelControl(stack).advanceClock(3_000)
      if (state === 'READY' || state === 'ERROR') await vercelControl(stack).advanceClock(11_000)
      if (state === 'CANCELED') await api().run('vercel.cancel_deployment', personal, { id })
      return id
    }

    it.each(['QUEUED', 'BUILDING'] as const)('a %s deployment is cancelled', async (state) => {
      const id = await deploymentIn(state)
      const { status, body } = await api().run('vercel.cancel_deployment', personal, { id })
      expect(status, JSON.stringify(body)).toBe(200)
      expect(body.output.readyState).toBe('CANCELED')
    })

    it.each(['READY', 'ERROR', 'CANCELED'] as const)(
      'a %s deployment cannot be cancelled, and the error says why',
      async (state) => {
        const id = await deploymentIn(state)
        const { status, body } = await api().run('vercel.cancel_deployment', personal, { id })
        expect(status).toBe(409)
        expect(body.code).toBe('conflict')
        expect(body.detail).toContain(`is ${state}`)
      },
    )

    it('a missing deployment is not_found', async () => {
      const { status } = await api().run('vercel.cancel_deployment', personal, {
        id: 'dpl_doesNotExist000000000000',
      })
      expect(status).toBe(404)
    })
  })

  it('Vercel API Call forwards custom headers and reports the rate-limit status', async () => {
    await vercelControl(stack).rateLimits({ disabled: false, limit: 1000, window_ms: 60_000 })
    const { status, body } = await api().run('vercel.api_call', personal, {
      method: 'GET',
      endpoint: `/v9/projects/${VERCEL.personalProject.id}`,
      headers: { 'x-request-tag': 'switchyard-test' },
    })
    expect(status).toBe(200)
    expect(body.output.body.name).toBe(VERCEL.personalProject.name)
    expect(body.output.rate_limit).toEqual({
      limit: 1000,
      remaining: expect.any(Number),
      reset_at: expect.stringMatching(/^\d{4}-/),
    })
  })

  it("a wrong version segment gets Vercel's own 404 as data", async () => {
    const { body } = await api().run('vercel.api_call', personal, {
      method: 'GET',
      endpoint: '/v12/deployments',
    })
    expect(body.output.status).toBe(404)
    expect(body.output.body.error.code).toBe('not_found')
  })
})

describe('Vercel rate limits', () => {
  it('when X-RateLimit-Remaining reaches 0 the next call waits for X-RateLimit-Reset instead of hitting 429', async () => {
    const control = vercelControl(stack)
    // Earlier tests moved the sandbox clock ahead; reset times must be in real time here, give or
    // take the skew between two hosts' clocks: the platform's runs 100 ms behind ours.
    await control.call('POST', '/clock', { set: Date.now() - 100 })
    await control.rateLimits({ disabled: false, limit: 3, window_ms: 2_000 })
    await control.clearRequests()
    const results = []
    for (let i = 0; i < 5; i++)
      results.push(await api().run('vercel.list_deployments', personal, { limit: 1 }))
    await control.rateLimits({ disabled: true })
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200])
    expect((await control.requests()).filter((r) => r.status === 429)).toEqual([])
  })
})
