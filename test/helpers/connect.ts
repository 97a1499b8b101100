import { expect } from 'vitest'
import { BrowserLike, parseForm } from './browser-like.ts'

export interface ConnectResult {
  /** Where the flow ended, on Switchyard: /integrations?connected=… or ?error=… */
  landing: URL
  integrationId?: string
  browser: BrowserLike
  /** The page that named the link's owner before the platform, as the browser saw it. */
  confirmation?: string
  /** Where the flow ended, when it ended before the platform (for example on Cancel). */
  landingPage?: Response
}

/**
 * Answers Switchyard's confirmation page (docs/security.md) when the connect URL shows one: posts
 * Continue, or Cancel. Answers where the browser then is, and the page's HTML.
 */
export async function answerConfirmation(
  browser: BrowserLike,
  opened: { response: Response; url: string },
  choice: 'continue' | 'cancel' = 'continue',
) {
  if (!/\/oauth\/start\/[^/]+$/.test(new URL(opened.url).pathname) || opened.response.status !== 200)
    return { ...opened, confirmation: undefined }
  const confirmation = await opened.response.text()
  const form = [...confirmation.matchAll(/<form[^>]*action="([^"]+)"/g)]
    .map((m) => new URL(m[1], opened.url).toString())
    .find((a) => a.endsWith(`/${choice}`))
  if (!form) throw new Error(`no ${choice} form on the confirmation page:\n${confirmation.slice(0, 500)}`)
  const answered = await browser.follow(await browser.post(form, {}), form)
  return { ...answered, confirmation }
}

/**
 * Drives the whole Zendesk connect flow over HTTP, as a person would: start it through the REST
 * API, open the connect URL, sign in on the sandbox's authorize page, allow (or deny) and follow the
 * redirects back to Switchyard.
 */
export async function connectZendesk(
  stack: { url: string; apiKey: string },
  options: {
    subdomain?: string
    email?: string
    password?: string
    decision?: 'allow' | 'deny'
    integrationId?: string
    confirm?: 'continue' | 'cancel'
  } = {},
): Promise<ConnectResult> {
  const start = await fetch(
    options.integrationId
      ? `${stack.url}/v1/integrations/${options.integrationId}/reconnect`
      : `${stack.url}/v1/integrations/connect`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
      body: options.integrationId
        ? '{}'
        : JSON.stringify({ platform: 'zendesk', fields: { subdomain: options.subdomain ?? 'acme' } }),
    },
  )
  expect(start.status, await start.clone().text()).toBe(201)
  const { connect_url } = await start.json()
  return completeConnect(connect_url, options)
}

export async function completeConnect(
  connectUrl: string,
  options: {
    email?: string
    password?: string
    decision?: 'allow' | 'deny'
    browser?: BrowserLike
    /** The answer on Switchyard's page that names the link's owner. */
    confirm?: 'continue' | 'cancel'
  } = {},
): Promise<ConnectResult> {
  const browser = options.browser ?? new BrowserLike()
  const opened = await browser.follow(await browser.get(connectUrl), connectUrl)
  const answered = await answerConfirmation(browser, opened, options.confirm)
  const { confirmation } = answered
  let { response, url } = answered
  if (new URL(url).pathname === '/integrations' || options.confirm === 'cancel')
    return { ...landed(url, browser), confirmation, landingPage: response }

  // Sign-in form.
  let html = await response.text()
  if (/name="password"/.test(html)) {
    const signIn = parseForm(html, url)
    const posted = await browser.post(signIn.action, {
      ...signIn.fields,
      email: options.email ?? 'admin@acme.test',
      password: options.password ?? 'sandbox',
    })
    ;({ response, url } = await browser.follow(posted, signIn.action))
    html = await response.text()
  }
  // Consent form.
  const consent = parseForm(html, url)
  const decided = await browser.post(consent.action, {
    ...consent.fields,
    decision: options.decision ?? 'allow',
  })
  const end = await browser.follow(decided, consent.action)
  return { ...landed(end.url, browser), confirmation }
}

function landed(url: string, browser: BrowserLike): ConnectResult {
  const landing = new URL(url)
  return { landing, integrationId: landing.searchParams.get('connected') ?? undefined, browser }
}
