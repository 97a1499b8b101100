import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseForm, postForm, unreadableRefusal } from '../kit/test-support.ts'
import { SEED } from './seed.ts'
import { call, startTestSandbox, type TestSandbox } from './test-support.ts'

// The account tokens page (vercel.com/account/tokens): a signed-in person makes an access token that
// works on the API at once, sees it once, and another site cannot make one for them.

let sandbox: TestSandbox
let pageUrl: string
beforeAll(async () => {
  sandbox = await startTestSandbox()
  pageUrl = `${sandbox.url}/account/tokens`
})
afterAll(() => sandbox.close())

/** Signs in as `email` on the page and answers the create form and the session cookie. */
async function signedIn(email: string = SEED.member.email) {
  const login = parseForm(await (await fetch(pageUrl)).text())
  const answer = await postForm(login.action, { ...login.fields, email, password: SEED.password })
  expect(answer.status).toBe(200)
  const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0] as string
  return { form: parseForm(await answer.text()), cookie }
}

describe('the Vercel account tokens page', () => {
  it('asks for a sign-in first', async () => {
    const html = await (await fetch(pageUrl)).text()
    expect(html).toContain('Log in to Vercel')
  })

  it('creates a team token shown once that works on the API, then lists it by name without its value', async () => {
    const { form, cookie } = await signedIn()
    const created = await postForm(
      form.action,
      { ...form.fields, name: 'CI <deploys>', teamId: SEED.team.id },
      { cookie },
    )
    expect(created.status).toBe(200)
    const html = await created.text()
    const token = /<code id="token">([^<]+)<\/code>/.exec(html)?.[1]
    expect(token, html).toBeDefined()
    expect(html).toContain('CI &lt;deploys&gt;')
    expect(html).not.toContain('CI <deploys>')
    const me = await call(`${sandbox.url}/v2/user`, { token })
    expect(me.body.user.id).toBe(SEED.member.id)
    expect((await call(`${sandbox.url}/v6/deployments?teamId=${SEED.team.id}`, { token })).status).toBe(200)
    const later = await (await fetch(pageUrl, { headers: { cookie } })).text()
    expect(later).toContain('CI &lt;deploys&gt;')
    expect(later).not.toContain(token!)
  })

  const refusals: Array<[string, Record<string, string>, number, RegExp]> = [
    ['no name', { name: ' ' }, 400, /Token name is required/],
    ['a team the person is not in', { name: 'x', teamId: 'team_nope' }, 400, /not a member of that team/],
    ['an unknown step', { step: 'delete', name: 'x' }, 400, /does not do/],
  ]
  it.each(refusals)('refuses %s with the reason', async (_what, fields, status, reason) => {
    const { form, cookie } = await signedIn()
    const answer = await postForm(form.action, { ...form.fields, ...fields }, { cookie })
    expect(answer.status).toBe(status)
    expect(await answer.text()).toMatch(reason)
  })

  it('refuses a create that carries only the cookie (another site posting the form)', async () => {
    const { cookie } = await signedIn()
    const before = (await (await fetch(pageUrl, { headers: { cookie } })).text()).match(/<tr>/g)?.length ?? 0
    const forged = await postForm(pageUrl, { step: 'create', name: 'forged' }, { cookie })
    expect(forged.status).toBe(403)
    expect(unreadableRefusal(await forged.text(), pageUrl)).toEqual([])
    const after = await (await fetch(pageUrl, { headers: { cookie } })).text()
    expect(after).not.toContain('forged')
    expect(after.match(/<tr>/g)?.length ?? 0).toBe(before)
  })
})
