import { SEED } from '../../src/sandboxes/vercel/seed.ts'
import { answerConfirmation } from './connect.ts'
import { BrowserLike, parseForm } from './browser-like.ts'
import { client, controlCaller } from './stack.ts'

export { SEED as VERCEL }

export function vercelControl(stack: { sandboxUrl: string }) {
  const call = controlCaller(`${stack.sandboxUrl}/vercel/_control`)
  return {
    call,
    advanceClock: (ms: number) => call('POST', '/clock', { advance_ms: ms }),
    requests: async (): Promise<
      Array<{ method: string; path: string; query: Record<string, string | string[]>; status: number }>
    > => (await call('GET', '/requests?limit=100000')).body.requests,
    clearRequests: () => call('DELETE', '/requests'),
    rateLimits: (config: Record<string, unknown>) => call('PUT', '/rate-limits', config),
  }
}

/**
 * Drives Vercel's install flow over HTTP as the pop-up would: sign in, choose the personal account
 * ("") or a team, allow or deny, and follow the redirects back to Switchyard.
 */
export async function connectVercel(
  stack: { url: string; apiKey: string },
  options: { teamId?: string; decision?: 'allow' | 'deny' } = {},
) {
  const start = await client(stack, stack.apiKey).post('/v1/integrations/connect', { platform: 'vercel' })
  if (start.status !== 201) throw new Error(`connect failed: ${start.status} ${start.text}`)
  const browser = new BrowserLike()
  const opened = await browser.follow(await browser.get(start.body.connect_url), start.body.connect_url)
  let { response, url } = await answerConfirmation(browser, opened)
  let html = await response.text()
  if (/name="password"/.test(html)) {
    const signIn = parseForm(html, url)
    const posted = await browser.post(signIn.action, {
      ...signIn.fields,
      email: SEED.user.email,
      password: SEED.password,
    })
    ;({ response, url } = await browser.follow(posted, signIn.action))
    html = await response.text()
  }
  const grant = parseForm(html, url)
  const decided = await browser.post(grant.action, {
    ...grant.fields,
    teamId: options.teamId ?? '',
    decision: options.decision ?? 'allow',
  })
  const end = await browser.follow(decided, grant.action)
  const landing = new URL(end.url)
  return { landing, integrationId: landing.searchParams.get('connected') ?? undefined, browser }
}
