import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandboxServer } from '../server.ts'

/**
 * Malformed percent-encoding in a path segment or a cookie is the client's mistake: every sandbox
 * answers it as its platform answers any bad input (a 4xx or the page), never with a 5xx.
 */
let base: string
let close: () => Promise<void>

beforeAll(async () => {
  const server = await startSandboxServer()
  base = server.url
  close = server.close
})
afterAll(() => close())

const MALFORMED = ['%', '%E0%A4%A', '%zz', '%C3', '%00%']

describe('malformed percent-encoding never answers 5xx', () => {
  it.each(MALFORMED)('in a session cookie on the authorize and install pages: %j', async (bad) => {
    const pages = [
      [
        `${base}/zendesk/acme/oauth/authorizations/new?response_type=code&client_id=switchyard&redirect_uri=${encodeURIComponent('http://127.0.0.1:1/cb')}&scope=read`,
        `zd_sandbox_session_acme=${bad}`,
      ],
      [
        `${base}/vercel/integrations/switchyard/new?redirect_uri=${encodeURIComponent('http://localhost:5173/oauth/vercel/callback')}`,
        `vercel_sandbox_session=${bad}`,
      ],
      [
        `${base}/trello/1/authorize?key=x&return_url=${encodeURIComponent('http://127.0.0.1:1/cb')}`,
        `trello_sandbox_session=${bad}`,
      ],
    ] as const
    for (const [url, cookie] of pages) {
      const answer = await fetch(url, { headers: { cookie }, redirect: 'manual' })
      expect(answer.status, url).toBeLessThan(500)
    }
  })

  it.each(MALFORMED)('in a path segment: %j', async (bad) => {
    for (const path of [
      `/vercel/integrations/${bad}/new`,
      `/vercel/projects/${bad}/settings/webhooks`,
      `/zendesk/${bad}/api/v2/users/me.json`,
      `/trello/1/boards/${bad}`,
      `/zendesk/_control/accounts/${bad}`,
      `/trello/_control/tokens/${bad}`,
    ]) {
      const answer = await fetch(`${base}${path}`, {
        method: path.includes('/_control/tokens/') ? 'DELETE' : 'GET',
        redirect: 'manual',
      })
      expect(answer.status, path).toBeLessThan(500)
    }
  })
})
