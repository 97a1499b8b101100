import { BrowserLike, parseForm } from './browser-like.ts'
import { answerConfirmation } from './connect.ts'
import { client } from './stack.ts'

/**
 * Drives Trello's OAuth 1.0a connect flow over HTTP as a person would: start it through the REST
 * API, open the connect URL, sign in on the sandbox's authorize page, allow (or deny), follow back.
 */
export async function connectTrelloOAuth(
  stack: { url: string; apiKey: string },
  options: { email?: string; decision?: 'allow' | 'deny' } = {},
) {
  const start = await client(stack, stack.apiKey).post('/v1/integrations/connect', { platform: 'trello' })
  if (start.status !== 201) throw new Error(`connect failed: ${start.status} ${start.text}`)
  const browser = new BrowserLike()
  const opened = await browser.follow(await browser.get(start.body.connect_url), start.body.connect_url)
  let { response, url } = await answerConfirmation(browser, opened)
  let html = await response.text()
  if (/name="password"/.test(html)) {
    const signIn = parseForm(html, url)
    const posted = await browser.post(signIn.action, {
      ...signIn.fields,
      email: options.email ?? 'ada@trello.test',
      password: 'sandbox',
    })
    ;({ response, url } = await browser.follow(posted, signIn.action))
    html = await response.text()
  }
  const consent = parseForm(html, url)
  const decided = await browser.post(consent.action, {
    ...consent.fields,
    decision: options.decision ?? 'allow',
  })
  const end = await browser.follow(decided, consent.action)
  const landing = new URL(end.url)
  return { landing, integrationId: landing.searchParams.get('connected') ?? undefined, browser }
}
