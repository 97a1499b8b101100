import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { homeFormToken, submitHomeForm, unreadableRefusal } from '../kit/test-support.ts'
import { SEED } from './seed.ts'
import { call, postForm, startReceiver, startTestSandbox, type TestSandbox } from './test-support.ts'

// The home page (docs/sandbox.md "Home pages"): a person deploys a project with an outcome of ready
// or error through a plain form; the API sees the deployment go through its states and the
// project's webhook is sent its events.

let sandbox: TestSandbox
let receiver: Awaited<ReturnType<typeof startReceiver>>
let teamToken: string

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
beforeEach(async () => {
  await sandbox.control('/reset', { method: 'POST' })
  await sandbox.control('/deliveries/settings', { method: 'PUT', body: { retry_delays_ms: [20, 40, 80] } })
  teamToken = await sandbox.token('ada', SEED.team.id)
  receiver = await startReceiver([200])
  const hook = await call(`${sandbox.url}/v1/webhooks?teamId=${SEED.team.id}`, {
    token: teamToken,
    json: {
      url: receiver.url,
      events: ['deployment.created', 'deployment.succeeded', 'deployment.error'],
      projectIds: [SEED.teamProject.id],
    },
  })
  expect(hook.status).toBe(200)
})
afterEach(() => receiver.close())
afterAll(() => sandbox.close())

const submit = (fields: Record<string, string>) => submitHomeForm(sandbox.url, fields)
const settled = async () => (await sandbox.control('/deliveries?wait=true&timeout_ms=5000')).body

describe('the Vercel home page', () => {
  it('lists users, projects with their webhook page, deployments, and links the account tokens page', async () => {
    const answer = await fetch(sandbox.url)
    expect(answer.status).toBe(200)
    const html = await answer.text()
    for (const text of [
      'Ada Lovelace',
      'Grace Hopper',
      'acme-web',
      'ada-blog',
      SEED.deployments.teamReady.id,
    ])
      expect(html).toContain(text)
    expect(html).toContain(`href="${sandbox.url}/projects/acme-web/settings/webhooks?teamId=${SEED.team.id}"`)
    expect(html).toContain(`href="${sandbox.url}/projects/ada-blog/settings/webhooks"`)
    expect(html).toContain(`href="${sandbox.url}/account/tokens"`)
    expect(html).toContain(`<option value="${SEED.member.id}" selected>`)
    // Grace may deploy the team's project, not Ada's own: the form starts on one she may.
    expect(html).toContain(`<option value="${SEED.teamProject.id}" selected>`)
  })

  for (const [outcome, last] of [
    ['ready', 'deployment.succeeded'],
    ['error', 'deployment.error'],
  ] as const) {
    it(`Grace deploys acme-web with outcome ${outcome}: the API shows it ${outcome.toUpperCase()} and ${last} is delivered`, async () => {
      const done = await submit({
        step: 'deploy',
        user: SEED.member.id,
        project: SEED.teamProject.id,
        target: 'production',
        outcome,
      })
      expect(done.status).toBe(303)
      const id = /deployed acme-web \(production\) as (dpl_\w+)/.exec(done.page)?.[1]
      expect(id, done.page).toBeDefined()
      const url = `${sandbox.url}/v13/deployments/${id}?teamId=${SEED.team.id}`
      expect((await call(url, { token: teamToken })).body).toMatchObject({
        readyState: 'QUEUED',
        creator: { uid: SEED.member.id },
        target: 'production',
      })
      await sandbox.advance(10_000)
      expect((await call(url, { token: teamToken })).body.readyState).toBe(outcome.toUpperCase())
      const result = await settled()
      expect(result.settled).toBe(true)
      expect(result.deliveries.map((x: { type: string }) => x.type)).toEqual(['deployment.created', last])
      expect(receiver.received.map((r) => JSON.parse(r.body).payload.deployment.id)).toEqual([id, id])
    })
  }

  const refusals: Array<[string, Record<string, string>, number, RegExp]> = [
    ['an unknown step', { step: 'delete' }, 400, /step must be deploy/],
    ['no user', { step: 'deploy', project: SEED.teamProject.id, outcome: 'ready' }, 400, /user is required/],
    [
      'an unknown user',
      { step: 'deploy', user: 'mallory', project: SEED.teamProject.id, outcome: 'ready' },
      404,
      /No user &quot;mallory&quot;/,
    ],
    ['no project', { step: 'deploy', user: 'grace', outcome: 'ready' }, 400, /project is required/],
    [
      'an unknown project',
      { step: 'deploy', user: 'grace', project: 'prj_nope', outcome: 'ready' },
      404,
      /No project &quot;prj_nope&quot;/,
    ],
    [
      'a bad outcome',
      { step: 'deploy', user: 'grace', project: SEED.teamProject.id, outcome: 'maybe' },
      400,
      /outcome must be ready or error/,
    ],
    [
      'another person’s project',
      { step: 'deploy', user: 'grace', project: SEED.personalProject.id, outcome: 'ready' },
      403,
      /cannot deploy ada-blog: it is Ada Lovelace&#39;s own project\. Choose Ada Lovelace as the person acting/,
    ],
  ]
  it.each(refusals)('refuses %s with a page naming the reason', async (_what, fields, status, reason) => {
    const refused = await submit(fields)
    expect(refused.status).toBe(status)
    expect(refused.location).toBeNull()
    expect(refused.page).toMatch(reason)
    expect(unreadableRefusal(refused.page, sandbox.url)).toEqual([])
  })

  it('refuses a form without the page secret or from another site, and deploys nothing', async () => {
    const before = (await call(`${sandbox.url}/v6/deployments?teamId=${SEED.team.id}`, { token: teamToken }))
      .body.deployments.length
    const fields = { step: 'deploy', user: 'grace', project: SEED.teamProject.id, outcome: 'ready' }
    expect((await postForm(sandbox.url, fields)).status).toBe(403)
    const crossSite = await postForm(
      sandbox.url,
      { ...fields, form_token: await homeFormToken(sandbox.url) },
      { origin: 'http://evil.example' },
    )
    expect(crossSite.status).toBe(403)
    expect(unreadableRefusal(await crossSite.text(), sandbox.url)).toEqual([])
    const after = (await call(`${sandbox.url}/v6/deployments?teamId=${SEED.team.id}`, { token: teamToken }))
      .body.deployments.length
    expect(after).toBe(before)
  })
})
