// End-to-end tests of the web app in Debian's Chromium (driven by playwright-core, no browser
// download), against the real Switchyard server and the Zendesk, Trello and Vercel sandboxes.
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { browserSuite, hasChromium, warnIfNoChromium, type BrowserStack } from '../../test/helpers/browser.ts'
import type { TestStack } from '../../test/helpers/test-stack.ts'

const STEP_TIMEOUT_MS = 20_000
const TEST_TIMEOUT_MS = 90_000

// Seeded account of the Zendesk sandbox.
const SANDBOX_SUBDOMAIN = 'acme'
const SANDBOX_EMAIL = 'admin@acme.test'
const SANDBOX_PASSWORD = 'sandbox'

// Seeded member and app of the Trello sandbox.
const TRELLO_EMAIL = 'ada@trello.test'
const TRELLO_PASSWORD = 'sandbox'
const TRELLO_NAME = 'Ada Lovelace (ada)'
const TRELLO_KEY = '0123456789abcdef0123456789abcdef'
const TRELLO_APP_SECRET = 'fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210'

// Seeded user and team of the Vercel sandbox.
const VERCEL_EMAIL = 'ada@vercel.test'
const VERCEL_PASSWORD = 'sandbox'
/** The team's name in Vercel's scope chooser; the integrations list each account as name (handle). */
const VERCEL_TEAM = 'Acme'
const VERCEL_ACCOUNT = 'Ada Lovelace (ada)'
const VERCEL_TEAM_ACCOUNT = 'Acme (acme)'

warnIfNoChromium('the browser tests')

describe.skipIf(!hasChromium)('web app in Chromium', () => {
  let stack: TestStack
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let pageErrors: string[]
  let cspViolations: string[]
  let openSignedIn: BrowserStack['openSignedIn']
  browserSuite({
    ownBuild: false,
    stepTimeoutMs: STEP_TIMEOUT_MS,
    ready: (s) => {
      ;({ stack, browser, context, page, pageErrors, cspViolations, openSignedIn } = s)
    },
  })

  // Compared by origin: the sandbox also listens on 127.0.0.1, and one port can prefix another.
  const onSwitchyard = (href: string) => new URL(href).origin === new URL(stack.url).origin
  const isPath = (path: string) => (u: URL) => onSwitchyard(u.href) && u.pathname === path

  /**
   * From the integrations page, starts connecting the sandbox's Zendesk account and stops on the
   * sandbox's consent page. The subdomain is pasted as the full address people copy from their
   * browser; the server takes the subdomain from it (test/oauth-connect.test.ts), so the flow goes
   * straight on, with no field error.
   */
  async function startZendeskConnect(): Promise<void> {
    await openSignedIn('/integrations')
    await page.getByRole('button', { name: 'Add integration' }).click()
    await page.getByRole('button', { name: /Zendesk/ }).click()
    const subdomain = page.locator('form.connect-form input[name="subdomain"]')
    await subdomain.fill(`https://${SANDBOX_SUBDOMAIN}.zendesk.com`)
    await page.getByRole('button', { name: 'Connect Zendesk' }).click()

    const sandboxLogin = page.locator('input[name="email"]')
    const consent = page.locator('button[name="decision"][value="allow"]')
    const fieldError = page.locator('form.connect-form [data-field-error]')
    await sandboxLogin.or(consent).or(fieldError).first().waitFor()
    expect(
      await fieldError.count(),
      'the full Zendesk address was refused instead of trimmed to its subdomain',
    ).toBe(0)
    expect(onSwitchyard(page.url()), `expected the sandbox's page, got ${page.url()}`).toBe(false)

    // The sandbox may remember the person from an earlier flow and go straight to consent.
    if (await sandboxLogin.isVisible()) {
      await sandboxLogin.fill(SANDBOX_EMAIL)
      await page.locator('input[name="password"]').fill(SANDBOX_PASSWORD)
      await page.locator('form:has(input[name="password"]) [type="submit"]').first().click()
    }
    await consent.waitFor()
  }

  /** After the consent page: follows the callback page's link back to /integrations (or its redirect). */
  async function returnToIntegrations(): Promise<URL> {
    const deadline = Date.now() + STEP_TIMEOUT_MS
    while (Date.now() < deadline) {
      const url = new URL(page.url())
      if (isPath('/integrations')(url)) return url
      const back = page.locator('a[href*="/integrations?"]')
      if (onSwitchyard(url.href) && (await back.count()) > 0) {
        await back.first().click()
        await page.waitForURL(isPath('/integrations'))
        return new URL(page.url())
      }
      await page.waitForTimeout(100)
    }
    throw new Error(
      `did not get back to /integrations; stuck on ${page.url()}: ${(await page.locator('body').innerText()).slice(0, 500)}`,
    )
  }

  async function connectZendesk(): Promise<void> {
    await startZendeskConnect()
    await page.locator('button[name="decision"][value="allow"]').click()
    const back = await returnToIntegrations()
    expect(back.searchParams.get('connected'), `returned to ${back.href}`).toBeTruthy()
  }

  it(
    'signs in with an API key and shows who is signed in',
    async () => {
      await page.goto('/integrations')
      await page.waitForURL(isPath('/login'))
      // The sign-in page leads with email and password; an API key is one click away.
      await page.getByRole('button', { name: 'Sign in with an API key instead' }).click()
      await page.getByLabel('API key').fill('sy_not_a_real_key')
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      // Refused (401, or 400 for a malformed key): the message sits under the field.
      await page.locator('#api-key-error').waitFor()
      expect(await page.getByLabel('API key').getAttribute('aria-invalid')).toBe('true')

      await page.getByLabel('API key').fill(stack.apiKey)
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      await page.waitForURL(isPath('/integrations'))
      await page.getByRole('heading', { name: 'Integrations', level: 1 }).waitFor()
      expect(await page.getByTestId('user-plan').innerText()).toMatch(/enterprise/i)
      expect(await page.getByTestId('user-email').innerText()).toContain('@')
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'connects the Zendesk sandbox account and lists it as active',
    async () => {
      await connectZendesk()
      const banner = page.locator('.banner-success')
      await banner.getByText(/^Connected /).waitFor()
      expect(await banner.locator('.banner-title').innerText()).toMatch(
        new RegExp(`Connected .*${SANDBOX_SUBDOMAIN}`, 'i'),
      )

      const row = page
        .getByRole('list', { name: 'Zendesk integrations' })
        .locator('li[data-integration-id]')
        .filter({ hasText: new RegExp(SANDBOX_SUBDOMAIN, 'i') })
      await row.first().waitFor()
      expect(await row.first().getAttribute('data-status')).toBe('active')
      expect(await row.first().locator('.badge').innerText()).toBe('Active')
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'says that nothing was connected when Deny is pressed, with no troubleshooting guesses',
    async () => {
      await startZendeskConnect()
      await page.locator('button[name="decision"][value="deny"]').click()
      const back = await returnToIntegrations()
      expect(back.searchParams.get('error'), `returned to ${back.href}`).not.toBeNull()

      const banner = page.locator('.banner-error')
      await banner.waitFor()
      expect(await banner.getAttribute('role')).toBe('alert')
      expect(await banner.locator('.banner-title').innerText()).toMatch(/not connected/)
      expect(await banner.locator('.banner-message').innerText()).toBe(
        "You chose Deny on Zendesk's authorization page, so nothing was connected. Connect again and choose Allow to add the account.",
      )
      expect(await banner.locator('.troubleshooting').count(), await banner.innerText()).toBe(0)
      await page.screenshot({ path: '/work/tmp/messages-deny.png', fullPage: true })
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'refuses an unknown Zendesk subdomain next to its field, before leaving Switchyard',
    async () => {
      await openSignedIn('/integrations')
      await page.getByRole('button', { name: 'Add integration' }).click()
      await page.getByRole('button', { name: /Zendesk/ }).click()
      const subdomain = page.locator('form.connect-form input[name="subdomain"]')
      await subdomain.fill('nope')
      await page.getByRole('button', { name: 'Connect Zendesk' }).click()
      const fieldError = page.locator('form.connect-form [data-field-error]')
      await fieldError.waitFor()
      expect(await fieldError.innerText()).toContain(
        'no Zendesk help desk at nope.zendesk.com: check the subdomain',
      )
      expect(await subdomain.getAttribute('aria-invalid')).toBe('true')
      expect(onSwitchyard(page.url())).toBe(true)
      await page.screenshot({ path: '/work/tmp/messages-unknown-subdomain.png', fullPage: true })
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'the API Call forms give the path prefix in words, and offer auth only where there is a choice',
    async () => {
      await openSignedIn('/tools?tool=vercel.api_call')
      const detail = page.locator('.tool-detail')
      const endpoint = detail.locator('[name="endpoint"]')
      await endpoint.waitFor()
      const help = async (name: string) =>
        detail
          .locator(
            `#${(await detail.locator(`[name="${name}"]`).getAttribute('aria-describedby'))!.split(' ')[0]}`,
          )
          .innerText()
      expect(await help('endpoint')).toContain(
        'starting with an API version such as /v13/, for example /v13/deployments/dpl_1a2b3c',
      )
      expect(await help('endpoint')).not.toContain('\\d')
      expect(await endpoint.getAttribute('placeholder')).toBe('/v13/deployments/dpl_1a2b3c')
      expect(await help('map')).toContain('deployment_url → body.url')
      expect(await detail.locator('[name="map"]').getAttribute('placeholder')).toBe(
        '{"deployment_url":"body.url"}',
      )
      expect(await detail.locator('[name="auth"]').count()).toBe(0)
      await page.screenshot({ path: '/work/tmp/messages-api-call-vercel.png', fullPage: true })

      await page.goto('/tools?tool=trello.api_call')
      await detail.getByRole('heading', { name: 'Trello API Call' }).waitFor()
      const auth = detail.locator('select[name="auth"]')
      await auth.waitFor()
      // The choices read as words, not as the codes the API takes.
      expect(await auth.locator('option').allInnerTexts()).toEqual(
        expect.arrayContaining(['The connected account', 'A key and token given here']),
      )
      // The pasted key and token are offered only with auth api_key: with the integration they cannot apply.
      expect(await detail.locator('input[name="key"]').count()).toBe(0)
      expect(await detail.locator('input[name="token"]').count()).toBe(0)
      await auth.selectOption({ label: 'A key and token given here' })
      expect(await detail.locator('input[name="key"]').getAttribute('type')).toBe('password')
      expect(await detail.locator('input[name="token"]').getAttribute('type')).toBe('password')
      await page.screenshot({ path: '/work/tmp/messages-api-call-trello.png', fullPage: true })
      // The step's Docs link opens its entry in the manual, in a tab of its own.
      const [docsTab] = await Promise.all([
        page.context().waitForEvent('page'),
        detail.getByRole('link', { name: 'Docs' }).click(),
      ])
      await docsTab.waitForLoadState()
      expect(new URL(docsTab.url()).pathname + new URL(docsTab.url()).hash).toBe(
        '/docs/tools.md#trello.api_call',
      )
      expect(await docsTab.locator('[id="trello.api_call"]').innerText()).toContain('Trello API Call')
      await docsTab.screenshot({ path: '/work/tmp/docs-tool-step.png' })
      await docsTab.close()
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'running a step on a disconnected integration says so and offers Reconnect',
    async () => {
      await openSignedIn('/integrations')
      await page.locator('.integration-list, .empty').first().waitFor()
      if (
        (await page
          .locator('li[data-integration-id][data-status="active"]')
          .filter({ hasText: new RegExp(SANDBOX_SUBDOMAIN, 'i') })
          .count()) === 0
      )
        await connectZendesk()
      const id = (await page
        .locator('li[data-integration-id][data-status="active"]')
        .filter({ hasText: new RegExp(SANDBOX_SUBDOMAIN, 'i') })
        .first()
        .getAttribute('data-integration-id'))!
      const row = page.locator(`li[data-integration-id="${id}"]`)
      await row.getByRole('button', { name: 'Disconnect' }).click()
      await row.getByRole('group').getByRole('button', { name: 'Disconnect' }).click() // confirm
      await page.locator(`li[data-integration-id="${id}"][data-status="disconnected"]`).waitFor()

      await page.goto('/tools?tool=zendesk.get_ticket')
      const detail = page.locator('.tool-detail')
      const picker = detail.locator('select[name="integration"]')
      await picker.waitFor()
      await picker.selectOption(id)
      await detail.locator('[name="ticket_id"]').fill('1')
      // A typed id stands as it is: Escape closes the ticket picker's list, as a keyboard user would.
      await detail.locator('[name="ticket_id"]').press('Escape')
      await detail.getByRole('button', { name: 'Run' }).click()
      const problem = detail.locator('.problem')
      await problem.waitFor()
      const text = await problem.innerText()
      expect(text).toContain('is disconnected, so Zendesk was not contacted')
      expect(text).not.toMatch(/refused/)
      expect(await problem.locator('.troubleshooting').count()).toBe(0)
      await page.screenshot({ path: '/work/tmp/messages-disconnected-run.png', fullPage: true })

      await problem.getByRole('link', { name: 'Reconnect' }).click()
      await page.waitForURL((u) => isPath('/integrations')(u) && u.searchParams.get('reconnect') === id)
      const marked = page.locator(`li.item-to-reconnect[data-integration-id="${id}"]`)
      await marked.waitFor()
      await expect
        .poll(() =>
          marked.getByRole('button', { name: 'Reconnect' }).evaluate((b) => b === document.activeElement),
        )
        .toBe(true)
      await page.screenshot({ path: '/work/tmp/messages-reconnect.png', fullPage: true })
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'finds Create Ticket by searching "ticketing" and runs it on the connected account',
    async () => {
      await openSignedIn('/integrations')
      const active = page
        .locator('li[data-integration-id][data-status="active"]')
        .filter({ hasText: new RegExp(SANDBOX_SUBDOMAIN, 'i') })
      await page.locator('.integration-list, .empty').first().waitFor()
      if ((await active.count()) === 0) await connectZendesk() // this test also runs on its own

      await page.getByRole('link', { name: 'Tool steps' }).click()
      await page.waitForURL(isPath('/tools'))
      await page.getByLabel('Search tool steps').fill('ticketing')
      const result = page
        .locator('.tool-result')
        .filter({ has: page.locator('.item-title', { hasText: /^Create Ticket$/ }) })
        .filter({ hasNotText: 'legacy' })
      await result.first().waitFor()
      expect(await page.getByLabel('Search tool steps').inputValue()).toBe('ticketing')
      expect(await result.first().locator('.badge').textContent()).toBe('write')
      await result.first().click()

      const detail = page.locator('.tool-detail')
      await detail.getByRole('heading', { name: 'Create Ticket' }).waitFor()
      const picker = detail.locator('select[name="integration"]')
      await picker.waitFor()
      const options = await picker.locator('option').evaluateAll((els) =>
        els.map((o) => ({
          value: (o as HTMLOptionElement).value,
          label: o.textContent ?? '',
          status: o.getAttribute('data-status'),
        })),
      )
      const acme = options.find(
        (o) => new RegExp(SANDBOX_SUBDOMAIN, 'i').test(o.label) && o.status === 'active',
      )
      expect(acme, `integration options: ${JSON.stringify(options)}`).toBeDefined()
      await picker.selectOption(acme!.value)

      // An empty subject is refused by the server, and the message sits next to the Subject field.
      await detail.locator('[name="description"]').fill('The printer on the third floor is on fire.')
      await detail.getByRole('button', { name: 'Run' }).click()
      const subjectError = detail.locator('[data-field-error][id$="-subject-error"]')
      await subjectError.waitFor()
      expect((await detail.locator('[name="subject"]').getAttribute('aria-describedby')) ?? '').toContain(
        await subjectError.getAttribute('id'),
      )

      await detail.locator('[name="subject"]').fill('Printer on fire')
      await detail.getByRole('button', { name: 'Run' }).click()

      const summary = detail.getByTestId('summary-line')
      const problem = detail.locator('.problem')
      await summary.or(problem).first().waitFor()
      if (await problem.isVisible()) throw new Error(`the run failed: ${await problem.innerText()}`)
      expect(await summary.innerText()).toMatch(/Ticket #\d+: Printer on fire created/)
      // The JSON stays one click away.
      await detail.getByText('Full output (JSON)').click()
      const parsed = JSON.parse(await detail.getByTestId('tool-output').innerText()) as Record<
        string,
        unknown
      >
      expect(parsed.id).toBeDefined()
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'creates an API key, shows it once, signs in with it, and deletes it',
    async () => {
      await openSignedIn('/settings/keys')
      await page.getByLabel('Key name').fill('browser test key')
      await page.getByRole('button', { name: 'Create key' }).click()
      const shown = page.getByTestId('new-api-key')
      await shown.waitFor()
      const newKey = (await shown.innerText()).trim()
      expect(newKey).toMatch(/^sy_/)
      const row = page.locator('tr[data-key-id]').filter({ hasText: 'browser test key' })
      await row.waitFor()
      expect(await row.innerText()).not.toContain(newKey) // the list shows only the prefix

      // Leaving the page forgets the key for good.
      await page.getByRole('link', { name: 'Integrations' }).click()
      await page.getByRole('link', { name: 'API keys' }).click()
      await row.waitFor()
      expect(await page.getByTestId('new-api-key').count()).toBe(0)
      expect(await page.locator('body').innerText()).not.toContain(newKey)

      // Sign out, then in again with the new key.
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.waitForURL(isPath('/login'))
      await page.goto('/settings/keys')
      await page.waitForURL(isPath('/login'))
      await page.getByRole('button', { name: 'Sign in with an API key instead' }).click()
      await page.getByLabel('API key').fill(newKey)
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      await page.waitForURL(isPath('/settings/keys'))

      await row.getByRole('button', { name: 'Delete' }).click()
      await row.getByRole('button', { name: 'Delete' }).click() // confirm
      await row.waitFor({ state: 'detached' })
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'disconnects, reconnects and deletes an integration',
    async () => {
      await openSignedIn('/integrations')
      await page.locator('.integration-list, .empty').first().waitFor()
      const acme = page
        .getByRole('list', { name: 'Zendesk integrations' })
        .locator('li[data-integration-id]')
        .filter({ hasText: new RegExp(SANDBOX_SUBDOMAIN, 'i') })
      if ((await acme.count()) === 0) await connectZendesk()
      const row = acme.first()
      const id = await row.getAttribute('data-integration-id')
      const sameRow = page.locator(`li[data-integration-id="${id}"]`)

      await sameRow.getByRole('button', { name: 'Disconnect' }).click()
      await sameRow.getByRole('group').getByRole('button', { name: 'Disconnect' }).click() // confirm
      await page.locator(`li[data-integration-id="${id}"][data-status="disconnected"]`).waitFor()
      expect(await sameRow.locator('.badge').innerText()).toBe('Disconnected')

      // Reconnect runs the consent flow again and brings the same integration back to active.
      await sameRow.getByRole('button', { name: 'Reconnect' }).click()
      const sandboxLogin = page.locator('input[name="email"]')
      const allow = page.locator('button[name="decision"][value="allow"]')
      await sandboxLogin.or(allow).first().waitFor()
      if (await sandboxLogin.isVisible()) {
        await sandboxLogin.fill(SANDBOX_EMAIL)
        await page.locator('input[name="password"]').fill(SANDBOX_PASSWORD)
        await page.locator('form:has(input[name="password"]) [type="submit"]').first().click()
      }
      await allow.click()
      const back = await returnToIntegrations()
      expect(back.searchParams.get('connected')).toBe(id)
      await page.locator(`li[data-integration-id="${id}"][data-status="active"]`).waitFor()

      await sameRow.getByRole('button', { name: 'Delete' }).click()
      await sameRow.getByRole('group').getByRole('button', { name: 'Delete' }).click() // confirm
      await sameRow.waitFor({ state: 'detached' })
      await page.reload()
      await page.locator('.integration-list, .empty').first().waitFor()
      expect(await page.locator(`li[data-integration-id="${id}"]`).count()).toBe(0)
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  // ---- Trello: OAuth, or an API key plus token ---------------------------------------------

  /** A token for the seeded app's key, minted by the sandbox as if Ada had pressed Allow on the token page. */
  async function mintTrelloToken(): Promise<string> {
    const res = await fetch(`${stack.sandboxUrl}/trello/_control/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ member: 'ada', key: TRELLO_KEY, scope: 'read,write', expiration: 'never' }),
    })
    expect(res.status, await res.clone().text()).toBeLessThan(300)
    const { token } = (await res.json()) as { token: string }
    expect(token).toBeTruthy()
    return token
  }

  /** Opens Add integration, picks Trello and chooses how to connect. */
  async function chooseTrello(method: 'authorize' | 'credentials'): Promise<void> {
    await openSignedIn('/integrations')
    await page.getByRole('button', { name: 'Add integration' }).click()
    await page.locator('button.platform-option', { hasText: 'Trello' }).click()
    const authorize = page.getByRole('radio', { name: 'Connect with Trello (recommended)' })
    const credentials = page.getByRole('radio', { name: 'Use an API key and token' })
    await authorize.waitFor()
    expect(await authorize.isChecked()).toBe(true) // the recommended way is the default
    await (method === 'authorize' ? authorize : credentials).check()
  }

  /** Nothing pasted may be left in the address bar or the browser's storage. */
  async function expectNotKept(...values: string[]): Promise<void> {
    const storage = await page.evaluate(() =>
      JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage } }),
    )
    for (const v of values) {
      expect(decodeURIComponent(page.url())).not.toContain(v)
      expect(storage).not.toContain(v)
    }
  }

  it(
    'offers Trello both ways, and Zendesk only its Connect button',
    async () => {
      await openSignedIn('/integrations')
      await page.getByRole('button', { name: 'Add integration' }).click()
      await page.locator('button.platform-option', { hasText: 'Zendesk' }).click()
      await page.locator('form.connect-form input[name="subdomain"]').waitFor()
      expect(await page.getByRole('radio').count()).toBe(0)
      expect(await page.locator('input[name="token"]').count()).toBe(0)

      await page.locator('button.platform-option', { hasText: 'Trello' }).click()
      await page.getByRole('radio', { name: 'Connect with Trello (recommended)' }).waitFor()
      expect(await page.getByRole('radio').count()).toBe(2)
      await page.getByRole('button', { name: 'Connect Trello' }).waitFor()
      expect(await page.locator('input[name="token"]').count()).toBe(0) // nothing to paste for OAuth
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'connects Trello with OAuth: sign in, allow, "Connected Ada Lovelace (ada)"',
    async () => {
      await chooseTrello('authorize')
      await page.getByRole('button', { name: 'Connect Trello' }).click()

      // Trello's page also offers a "create account" form; sign in with the seeded member.
      const signIn = page
        .locator(
          'form:has(input[name="step"][value="signin"]), form:has(input[name="email"]):not(:has(input[name="fullName"]))',
        )
        .first()
      const login = signIn.locator('input[name="email"]')
      const allow = page.locator('button[name="decision"][value="allow"]')
      await login.or(allow).first().waitFor()
      expect(onSwitchyard(page.url()), `expected Trello's authorize page, got ${page.url()}`).toBe(false)
      if (await login.isVisible()) {
        await login.fill(TRELLO_EMAIL)
        await signIn.locator('input[name="password"]').fill(TRELLO_PASSWORD)
        await signIn.locator('[type="submit"]').click()
      }
      await allow.click()
      const back = await returnToIntegrations()
      const id = back.searchParams.get('connected')
      expect(id, `returned to ${back.href}`).toBeTruthy()

      const banner = page.locator('.banner-success')
      await banner.waitFor()
      expect(await banner.locator('.banner-title').innerText()).toBe(`Connected ${TRELLO_NAME}`)
      expect(await banner.innerText()).toContain('Trello')
      const row = page.locator(`li[data-integration-id="${id}"]`)
      await row.waitFor()
      expect(await row.innerText()).toContain(TRELLO_NAME)
      expect(await row.getAttribute('data-status')).toBe('active')
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'shows the token page link as soon as a plausible API key is typed',
    async () => {
      await chooseTrello('credentials')
      const form = page.locator('form.credentials-form')
      const key = form.locator('input[name="key"]')
      const link = form.getByRole('link', { name: /Create a token for this key/ })
      await key.waitFor()
      expect(await link.count()).toBe(0)
      const helpAsked: string[] = []
      const onRequest = (request: { url(): string }) => {
        if (request.url().includes('/credential-help')) helpAsked.push(request.url())
      }
      page.on('request', onRequest)

      await key.pressSequentially(TRELLO_KEY.slice(0, 31))
      expect(await link.count()).toBe(0)
      await key.pressSequentially(TRELLO_KEY.slice(31))
      await link.waitFor()
      page.off('request', onRequest)
      // Requests are reported in the order the page sends them, so one for the partial key would be
      // listed before the full key's, whose answer the link shows: only the full key was ever sent.
      expect(helpAsked.map((url) => new URL(url).search)).toEqual([`?key=${TRELLO_KEY}`])
      const href = new URL((await link.getAttribute('href'))!)
      expect(href.searchParams.get('key')).toBe(TRELLO_KEY)
      expect(href.searchParams.get('response_type')).toBe('token')
      expect(onSwitchyard(href.href)).toBe(false) // it is Trello's page (here, the sandbox's)
      expect(await link.getAttribute('target')).toBe('_blank')
      expect(await link.getAttribute('rel')).toContain('noopener')

      // It opens in a new tab; this page stays where it is.
      const [tab] = await Promise.all([context.waitForEvent('page'), link.click()])
      await tab.waitForLoadState()
      expect(new URL(tab.url()).searchParams.get('key')).toBe(TRELLO_KEY)
      await tab.close()
      expect(isPath('/integrations')(new URL(page.url()))).toBe(true)

      // A key that stops looking like one takes the link away again.
      await key.fill(TRELLO_KEY.slice(0, 31))
      await link.waitFor({ state: 'detached' })
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'connects Trello with an API key and token, lists it, and forgets the pasted values',
    async () => {
      const token = await mintTrelloToken()
      await chooseTrello('credentials')
      const form = page.locator('form.credentials-form')
      const key = form.locator('input[name="key"]')
      const tokenInput = form.locator('input[name="token"]')

      // Both values are masked, can be shown, and say where they come from.
      expect(await key.getAttribute('type')).toBe('password')
      expect(await tokenInput.getAttribute('type')).toBe('password')
      await form.getByRole('button', { name: 'Show API key' }).click()
      expect(await key.getAttribute('type')).toBe('text')
      await form.getByRole('button', { name: 'Hide API key' }).click()
      expect(await key.getAttribute('type')).toBe('password')
      const keyHelp = await page
        .locator(`#${(await key.getAttribute('aria-describedby'))!.split(' ')[0]}`)
        .innerText()
      expect(keyHelp).toMatch(/developer admin/i)
      expect(keyHelp).toMatch(/name/i)
      const tokenHelp = await page
        .locator(`#${(await tokenInput.getAttribute('aria-describedby'))!.split(' ')[0]}`)
        .innerText()
      expect(tokenHelp).toMatch(/token page/i)

      await key.fill(TRELLO_KEY)
      await tokenInput.fill(token)
      await form.getByRole('button', { name: 'Connect Trello' }).click()

      const banner = page.locator('.banner-success')
      await banner.or(form.locator('.problem')).first().waitFor()
      if (await form.locator('.problem').isVisible())
        throw new Error(`not connected: ${await form.locator('.problem').innerText()}`)
      expect(await banner.locator('.banner-title').innerText()).toBe(`Connected ${TRELLO_NAME}`)
      const id = new URL(page.url()).searchParams.get('connected')
      expect(id).toBeTruthy()
      const row = page.locator(`li[data-integration-id="${id}"]`)
      await row.waitFor()
      expect(await row.innerText()).toContain(TRELLO_NAME)
      expect(await row.getAttribute('data-status')).toBe('active')
      expect(
        await page
          .getByRole('list', { name: 'Trello integrations' })
          .locator('li[data-integration-id]')
          .filter({ hasText: TRELLO_NAME })
          .count(),
      ).toBe(1)

      // The form is cleared, and the values are nowhere to be found.
      expect(await key.inputValue()).toBe('')
      expect(await tokenInput.inputValue()).toBe('')
      expect(await tokenInput.getAttribute('type')).toBe('password')
      expect(await page.locator('body').innerText()).not.toContain(token)
      await expectNotKept(token, TRELLO_KEY)

      // Listed by the server too, not only on this page.
      await page.reload()
      await page.locator(`li[data-integration-id="${id}"][data-status="active"]`).waitFor()
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'reconnects a key-and-token integration whose token was revoked by pasting a new token',
    async () => {
      const rest = (method: string, path: string, body?: unknown) =>
        fetch(`${stack.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
      const oldToken = await mintTrelloToken()
      const created = (await (
        await rest('POST', '/v1/integrations', {
          platform: 'trello',
          credentials: { key: TRELLO_KEY, token: oldToken },
        })
      ).json()) as { id: string }
      // Ada revokes the token on Trello; the next step run finds out and flags the integration.
      expect(
        (
          await fetch(`${stack.sandboxUrl}/trello/1/tokens/${oldToken}?key=${TRELLO_KEY}&token=${oldToken}`, {
            method: 'DELETE',
          })
        ).status,
      ).toBe(200)
      await rest('POST', '/v1/tools/trello.get_boards/run', { integration: created.id, input: {} })

      await openSignedIn('/integrations')
      const row = page.locator(`li[data-integration-id="${created.id}"]`)
      await row.locator('xpath=self::*[@data-status="needs_reconnection"]').waitFor()
      await row.getByRole('button', { name: 'Reconnect' }).click()
      // No trip to Trello's authorize page: the same way it was connected, in place.
      const form = row.locator('form.credentials-form')
      expect(await form.getByRole('heading').innerText()).toBe(`Reconnect ${TRELLO_NAME}`)
      const newToken = await mintTrelloToken()
      await form.locator('input[name="key"]').fill(TRELLO_KEY)
      await form.locator('input[name="token"]').fill(newToken)
      await form.getByRole('button', { name: 'Reconnect' }).click()

      await row.locator('xpath=self::*[@data-status="active"]').waitFor()
      expect(await form.count()).toBe(0)
      expect(onSwitchyard(page.url())).toBe(true)
      expect(await page.locator('body').innerText()).not.toContain(newToken)
      await expectNotKept(newToken, oldToken)
      const ran = (await (
        await rest('POST', '/v1/tools/trello.get_boards/run', { integration: created.id, input: {} })
      ).json()) as { output?: unknown }
      expect(ran.output).toBeDefined()
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'says so, with a link to the token page, when the app secret is pasted as the token',
    async () => {
      await chooseTrello('credentials')
      const form = page.locator('form.credentials-form')
      await form.locator('input[name="key"]').fill(TRELLO_KEY)
      await form.locator('input[name="token"]').fill(TRELLO_APP_SECRET)
      await form.getByRole('button', { name: 'Connect Trello' }).click()

      const problem = form.locator('.problem')
      await problem.waitFor()
      expect(await problem.getAttribute('role')).toBe('alert')
      const detail = problem.locator('.problem-detail')
      expect(await detail.innerText()).toMatch(/app's secret/i)
      const link = detail.getByRole('link')
      expect(await link.count()).toBe(1)
      const href = new URL((await link.getAttribute('href'))!)
      expect(href.pathname).toMatch(/\/1\/authorize$/)
      expect(href.searchParams.get('key')).toBe(TRELLO_KEY)
      expect(href.searchParams.get('response_type')).toBe('token')
      expect(await link.innerText()).toBe(href.href) // the address itself is the link text
      expect(await link.getAttribute('target')).toBe('_blank')
      // Only the rule that applies is shown: the one about the key and the token, not OAuth or expiry.
      const rules = await problem.locator('.troubleshooting li').allInnerTexts()
      expect(rules).toHaveLength(1)
      expect(rules[0]).toMatch(/^With an API key plus token/)

      // Nothing was connected, the values stay for correcting, and none went into the address bar.
      expect(await page.locator('.banner-success').count()).toBe(0)
      expect(await form.locator('input[name="token"]').inputValue()).toBe(TRELLO_APP_SECRET)
      await expectNotKept(TRELLO_APP_SECRET)
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'puts a refused value next to its field',
    async () => {
      await chooseTrello('credentials')
      const form = page.locator('form.credentials-form')
      const tokenInput = form.locator('input[name="token"]')
      await form.locator('input[name="key"]').fill(TRELLO_KEY)
      await tokenInput.fill('not-a-token')
      await form.getByRole('button', { name: 'Connect Trello' }).click()
      const tokenError = form.locator('[data-field-error][id$="-token-error"]')
      await tokenError.waitFor()
      expect((await tokenInput.getAttribute('aria-describedby'))?.split(' ')).toContain(
        await tokenError.getAttribute('id'),
      )
      expect(await tokenInput.getAttribute('aria-invalid')).toBe('true')
      expect(await form.locator('[data-field-error][id$="-key-error"]').count()).toBe(0)
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  // ---- Vercel: the install page opens in a pop-up window -------------------------------------

  /** Opens Add integration, picks Vercel and presses Connect; answers the pop-up it opens. */
  async function openVercelPopup(): Promise<Page> {
    await openSignedIn('/integrations')
    await page.getByRole('button', { name: 'Add integration' }).click()
    await page.locator('button.platform-option', { hasText: 'Vercel' }).click()
    const connect = page.getByRole('button', { name: 'Connect Vercel' })
    const [popup] = await Promise.all([page.waitForEvent('popup'), connect.click()])
    popup.on('pageerror', (err) => pageErrors.push(`pop-up ${popup.url()}: ${err.message}`))
    // This page waits, and stays where it is.
    await page.getByTestId('popup-waiting').waitFor()
    expect(await page.getByRole('button', { name: 'Waiting for Vercel…' }).isDisabled()).toBe(true)
    expect(isPath('/integrations')(new URL(page.url()))).toBe(true)
    return popup
  }

  /** In the pop-up: signs in (unless the sandbox remembers Ada) and stops on the consent page. */
  async function signInToVercel(popup: Page): Promise<void> {
    const login = popup.locator('input[name="email"]')
    const allow = popup.locator('button[name="decision"][value="allow"]')
    await login.or(allow).first().waitFor()
    expect(onSwitchyard(popup.url()), `expected Vercel's install page, got ${popup.url()}`).toBe(false)
    if (await login.isVisible()) {
      await login.fill(VERCEL_EMAIL)
      await popup.locator('input[name="password"]').fill(VERCEL_PASSWORD)
      await popup.locator('form:has(input[name="password"]) [type="submit"]').first().click()
    }
    await allow.waitFor()
  }

  /** Chooses the personal account ('') or a team by name, as a select or as radio buttons. */
  async function chooseVercelScope(popup: Page, team: string): Promise<void> {
    const select = popup.locator('select[name="teamId"]')
    if ((await select.count()) > 0) {
      const options = await select
        .locator('option')
        .evaluateAll((els) =>
          els.map((o) => ({ value: (o as HTMLOptionElement).value, label: o.textContent ?? '' })),
        )
      const option =
        team === ''
          ? options.find((o) => o.value === '')
          : options.find((o) => o.label.trim().startsWith(team))
      expect(option, `scope options: ${JSON.stringify(options)}`).toBeDefined()
      await select.selectOption(option!.value)
      return
    }
    const radio =
      team === ''
        ? popup.locator('input[name="teamId"][value=""]')
        : popup.getByRole('radio', { name: new RegExp(team) })
    await radio.check()
  }

  /** Allows access in the pop-up and waits for it to hand the result over and close. */
  async function allowInPopup(popup: Page): Promise<void> {
    await Promise.all([
      popup.waitForEvent('close'),
      popup.locator('button[name="decision"][value="allow"]').click(),
    ])
  }

  const vercelRow = (name: string) =>
    page
      .getByRole('list', { name: 'Vercel integrations' })
      .locator('li[data-integration-id]')
      .filter({
        has: page.locator('.item-title', { hasText: new RegExp(`^${name.replace(/[()]/g, '\\$&')}$`) }),
      })

  async function connectVercel(team: string): Promise<string> {
    const popup = await openVercelPopup()
    await signInToVercel(popup)
    await chooseVercelScope(popup, team)
    await allowInPopup(popup)
    const name = team ? VERCEL_TEAM_ACCOUNT : VERCEL_ACCOUNT
    const banner = page.locator('.banner-success')
    await banner.or(page.locator('.banner-error')).first().waitFor()
    if (await page.locator('.banner-error').isVisible())
      throw new Error(`not connected: ${await page.locator('.banner-error').innerText()}`)
    expect(await banner.locator('.banner-title').innerText()).toBe(`Connected ${name}`)
    expect(await banner.innerText()).toContain('Vercel')
    const id = new URL(page.url()).searchParams.get('connected')
    expect(id, `main page at ${page.url()}`).toBeTruthy()
    const row = page.locator(`li[data-integration-id="${id}"]`)
    await row.waitFor()
    expect(await row.locator('.item-title').innerText()).toBe(name)
    expect(await row.getAttribute('data-status')).toBe('active')
    // The waiting is over: the add panel has closed.
    expect(await page.getByTestId('popup-waiting').count()).toBe(0)
    await page.getByRole('button', { name: 'Add integration' }).waitFor()
    return id!
  }

  it(
    'connects the personal Vercel account in a pop-up: "Connected Ada Lovelace (ada)"',
    async () => {
      const id = await connectVercel('')
      expect(await vercelRow(VERCEL_ACCOUNT).count()).toBe(1)
      // Listed by the server too, not only on this page.
      await page.goto('/integrations')
      await page.locator(`li[data-integration-id="${id}"][data-status="active"]`).waitFor()
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'connects the Vercel team "Acme" as a second, separate integration',
    async () => {
      await openSignedIn('/integrations')
      await page.locator('.integration-list, .empty').first().waitFor()
      const personal =
        (await vercelRow(VERCEL_ACCOUNT).count()) > 0
          ? await vercelRow(VERCEL_ACCOUNT).first().getAttribute('data-integration-id')
          : await connectVercel('')
      const team = await connectVercel(VERCEL_TEAM)
      expect(team).not.toBe(personal)
      await page.locator(`li[data-integration-id="${personal}"]`).waitFor()
      expect(await vercelRow(VERCEL_ACCOUNT).count()).toBe(1)
      expect(await vercelRow(VERCEL_TEAM_ACCOUNT).count()).toBe(1)
      // Grouped by platform: both Vercel accounts sit together under "Vercel", after the platforms
      // connected earlier in this file, each group once.
      const vercelGroup = page.getByRole('list', { name: 'Vercel integrations' })
      expect(
        await vercelGroup
          .locator(`li[data-integration-id="${personal}"], li[data-integration-id="${team}"]`)
          .count(),
      ).toBe(2)
      const groups = await page.locator('.integration-group .group-title').allInnerTexts()
      expect(groups).toContain('Vercel')
      expect(new Set(groups).size).toBe(groups.length)
      // Each platform's group links to how to connect it.
      expect(await page.getByRole('link', { name: 'Connecting Vercel' }).getAttribute('href')).toBe(
        '/docs/platforms/vercel.md',
      )
      await page.screenshot({ path: `${SHOTS}/integrations-grouped.png`, fullPage: true })
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'says that nothing was connected when Deny is pressed in the Vercel pop-up',
    async () => {
      const popup = await openVercelPopup()
      await signInToVercel(popup)
      await Promise.all([
        popup.waitForEvent('close'),
        popup.locator('button[name="decision"][value="deny"]').click(),
      ])

      const banner = page.locator('.banner-error')
      await banner.waitFor()
      expect(await banner.getAttribute('role')).toBe('alert')
      expect(await banner.locator('.banner-title').innerText()).toMatch(/not connected/)
      expect(await banner.innerText()).toContain(
        "You chose Deny on Vercel's authorization page, so nothing was connected.",
      )
      expect(await banner.locator('.troubleshooting').count(), await banner.innerText()).toBe(0)
      expect(new URL(page.url()).searchParams.get('error')).not.toBeNull()
      // Nothing waits any more, and Connect can be pressed again.
      expect(await page.getByTestId('popup-waiting').count()).toBe(0)
      expect(await page.getByRole('button', { name: 'Connect Vercel' }).isEnabled()).toBe(true)
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'stops waiting when the Vercel pop-up is closed before access is granted',
    async () => {
      const popup = await openVercelPopup()
      await popup.locator('input[name="email"], button[name="decision"]').first().waitFor()
      await popup.close()

      await page.getByTestId('popup-closed').waitFor()
      expect(await page.getByTestId('popup-waiting').count()).toBe(0)
      const connect = page.getByRole('button', { name: 'Connect Vercel' })
      expect(await connect.isEnabled()).toBe(true)
      expect(await page.locator('.banner-success, .banner-error').count()).toBe(0)
      expect(new URL(page.url()).search).toBe('')

      // And it can start over.
      const [again] = await Promise.all([page.waitForEvent('popup'), connect.click()])
      await page.getByTestId('popup-waiting').waitFor()
      expect(await page.getByTestId('popup-closed').count()).toBe(0)
      await again.close()
      await page.getByTestId('popup-closed').waitFor()
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'reconnects a disconnected Vercel integration in a pop-up',
    async () => {
      await openSignedIn('/integrations')
      await page.locator('.integration-list, .empty').first().waitFor()
      const id =
        (await vercelRow(VERCEL_ACCOUNT).count()) > 0
          ? await vercelRow(VERCEL_ACCOUNT).first().getAttribute('data-integration-id')
          : await connectVercel('')
      const row = page.locator(`li[data-integration-id="${id}"]`)
      await row.getByRole('button', { name: 'Disconnect' }).click()
      await row.getByRole('group').getByRole('button', { name: 'Disconnect' }).click() // confirm
      await page.locator(`li[data-integration-id="${id}"][data-status="disconnected"]`).waitFor()

      const [popup] = await Promise.all([
        page.waitForEvent('popup'),
        row.getByRole('button', { name: 'Reconnect' }).click(),
      ])
      await row.getByTestId('popup-waiting').waitFor()
      await signInToVercel(popup)
      await chooseVercelScope(popup, '')
      await allowInPopup(popup)

      await page.locator(`li[data-integration-id="${id}"][data-status="active"]`).waitFor()
      expect(await page.locator('.banner-success .banner-title').innerText()).toBe(
        `Connected ${VERCEL_ACCOUNT}`,
      )
      expect(new URL(page.url()).searchParams.get('connected')).toBe(id)
      expect(await row.getByTestId('popup-waiting').count()).toBe(0)
      expect(await vercelRow(VERCEL_ACCOUNT).count()).toBe(1)
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'offers to continue in the tab when the Vercel pop-up is blocked',
    async () => {
      await openSignedIn('/integrations')
      await page.getByRole('button', { name: 'Add integration' }).click()
      await page.locator('button.platform-option', { hasText: 'Vercel' }).click()
      await page.evaluate(() => {
        window.open = () => null // what a pop-up blocker does
      })
      await page.getByRole('button', { name: 'Connect Vercel' }).click()
      const blocked = page.getByTestId('popup-blocked')
      await blocked.waitFor()
      expect(await blocked.innerText()).toMatch(/blocked/i)
      const link = blocked.getByRole('link', { name: 'Continue to Vercel in this tab' })
      expect(new URL((await link.getAttribute('href'))!).pathname).not.toBe('/integrations')

      await link.click()
      await signInToVercel(page)
      await chooseVercelScope(page, '')
      await page.locator('button[name="decision"][value="allow"]').click()
      const back = await returnToIntegrations()
      expect(back.searchParams.get('connected'), `returned to ${back.href}`).toBeTruthy()
      const banner = page.locator('.banner-success')
      await banner.waitFor()
      expect(await banner.locator('.banner-title').innerText()).toBe(`Connected ${VERCEL_ACCOUNT}`)
      expect(await vercelRow(VERCEL_ACCOUNT).count()).toBe(1) // the same account again: no twin
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'tags the legacy Add Comment step, and not its successor',
    async () => {
      await openSignedIn('/tools')
      await page.getByLabel('Search tool steps').fill('comment')
      const byTitle = (title: string) =>
        page
          .locator('.tool-result')
          .filter({ has: page.locator('.item-title', { hasText: new RegExp(`^${title}$`) }) })
      const legacy = byTitle('Add Comment')
      await legacy.first().waitFor()
      expect(await legacy.first().locator('.tag').innerText()).toBe('legacy')
      expect(await legacy.first().innerText()).toContain('Trello')
      const successor = byTitle('Add Comment to Card')
      await successor.first().waitFor()
      expect(await successor.first().locator('.tag').count()).toBe(0)

      await legacy.first().click()
      const detail = page.locator('.tool-detail')
      await detail.getByRole('heading', { name: 'Add Comment', exact: true }).waitFor()
      expect(await detail.locator('.tool-meta .tag').innerText()).toBe('legacy')
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )
  // ---- Users (admins only) and connect links opened by someone else ------------------------

  const SHOTS = '/work/tmp'

  /** The REST API as the stack's admin, to check what the page did. */
  async function rest(path: string, apiKey = stack.apiKey): Promise<{ status: number; body: any }> {
    const res = await fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${apiKey}` } })
    return { status: res.status, body: await res.json().catch(() => undefined) }
  }

  it(
    'an admin adds a user with a plan, changes the plan, and removes them after confirming',
    async () => {
      await openSignedIn('/integrations')
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click()
      await page.waitForURL(isPath('/settings/users'))
      await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor()
      const table = page.locator('table.user-table')
      await table.waitFor()
      expect(await table.locator('tr', { hasText: '(you)' }).count()).toBe(1)

      // A bad email is refused next to its field.
      await page.getByLabel('Email').fill('not-an-email')
      await page.getByRole('button', { name: 'Add user' }).click()
      const emailError = page.locator('#user-email-error')
      await emailError.waitFor()
      expect(await emailError.innerText()).toMatch(/email/)
      expect(await page.getByLabel('Email').getAttribute('aria-invalid')).toBe('true')
      await page.screenshot({ path: `${SHOTS}/users-bad-email.png`, fullPage: true })

      const email = `grace-${Date.now()}@example.test`
      await page.getByLabel('Email').fill(email)
      await page.locator('#user-plan').selectOption('pro')
      await page.getByRole('button', { name: 'Add user' }).click()
      const banner = page.locator('.banner-success')
      await banner.getByText(`Added ${email} (pro)`).waitFor()
      const key = await page.getByTestId('new-user-api-key').innerText()
      expect(key).toMatch(/^sy_/)
      expect((await rest('/v1/me', key)).body).toMatchObject({ email, plan: 'pro', role: 'member' })
      const row = table.locator('tr', { hasText: email })
      expect(await row.getByLabel(`Plan of ${email}`).inputValue()).toBe('pro')
      await page.screenshot({ path: `${SHOTS}/users-created.png`, fullPage: true })

      await row.getByLabel(`Plan of ${email}`).selectOption('enterprise')
      await expect.poll(async () => (await rest('/v1/me', key)).body.plan).toBe('enterprise')
      // The row shows what the server answered, once its answer has reached the page.
      await expect.poll(() => row.getByLabel(`Plan of ${email}`).inputValue()).toBe('enterprise')

      // The admin's own plan: the badge in the top bar follows at once (and is put back for the tests after).
      const mine = table.locator('tr', { hasText: '(you)' }).locator('select').first()
      await mine.selectOption('pro')
      await expect.poll(() => page.getByTestId('user-plan').innerText()).toMatch(/^pro$/i)
      await mine.selectOption('enterprise')
      await expect.poll(() => page.getByTestId('user-plan').innerText()).toMatch(/^enterprise$/i)

      await row.getByRole('button', { name: 'Remove' }).click()
      const question = row.getByRole('group', { name: new RegExp(`Remove ${email.replace(/[.]/g, '\\.')}`) })
      await question.waitFor()
      await page.screenshot({ path: `${SHOTS}/users-remove-confirm.png`, fullPage: true })
      await question.getByRole('button', { name: 'Remove' }).click()
      await page.locator('.banner-success').getByText(`Removed ${email}`).waitFor()
      expect(await table.locator('tr', { hasText: email }).count()).toBe(0)
      expect((await rest('/v1/me', key)).status).toBe(401)
      await page.screenshot({ path: `${SHOTS}/users-removed.png`, fullPage: true })
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'hides Users from a member, and tells them only an admin can manage users',
    async () => {
      const member = await stack.createUser('free')
      const memberContext = await browser.newContext({ baseURL: stack.url })
      try {
        const memberPage = await memberContext.newPage()
        await memberPage.goto('/login')
        await memberPage.getByRole('button', { name: 'Sign in with an API key instead' }).click()
        await memberPage.getByLabel('API key').fill(member.apiKey)
        await memberPage.getByRole('button', { name: 'Sign in', exact: true }).click()
        await memberPage.locator('.topbar').waitFor()
        const nav = memberPage.getByRole('navigation', { name: 'Main' })
        await nav.getByRole('link', { name: 'API keys' }).waitFor()
        expect(await nav.getByRole('link', { name: 'Users' }).count()).toBe(0)
        await memberPage.goto('/settings/users')
        await memberPage.getByText('Only an admin can manage users.').waitFor()
        expect(await memberPage.locator('table').count()).toBe(0)
      } finally {
        await memberContext.close()
      }
    },
    TEST_TIMEOUT_MS,
  )

  async function connectLinkOf(apiKey: string): Promise<string> {
    const res = await fetch(`${stack.url}/v1/integrations/connect`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ platform: 'zendesk', fields: { subdomain: SANDBOX_SUBDOMAIN } }),
    })
    expect(res.status).toBe(201)
    return (await res.json()).connect_url
  }

  it(
    'a connect link opened by someone else names its owner; Cancel stops, Continue goes to Zendesk',
    async () => {
      const owner = (await rest('/v1/me')).body.email as string
      const strangerContext = await browser.newContext() // not signed in to Switchyard
      try {
        const stranger = await strangerContext.newPage()
        const failures: string[] = []
        stranger.on('pageerror', (err) => failures.push(err.message))
        stranger.on('console', (m) => {
          if (/Content Security Policy|Refused/i.test(m.text())) failures.push(m.text())
        })
        stranger.on('response', (r) => {
          if (onSwitchyard(r.url()) && r.status() >= 400 && !r.url().endsWith('/favicon.ico'))
            failures.push(`${r.status()} ${r.url()}`)
        })

        await stranger.goto(await connectLinkOf(stack.apiKey))
        await stranger.getByRole('heading', { name: `Connect a Zendesk account to ${owner}?` }).waitFor()
        await stranger.screenshot({ path: `${SHOTS}/users-connect-confirm.png`, fullPage: true })
        await stranger.getByRole('button', { name: 'Cancel' }).click()
        await stranger.getByRole('heading', { name: 'Cancelled' }).waitFor()
        expect(await stranger.locator('body').innerText()).toContain(`Nothing was connected to ${owner}`)
        await stranger.screenshot({ path: `${SHOTS}/users-connect-cancelled.png`, fullPage: true })

        await stranger.goto(await connectLinkOf(stack.apiKey))
        await stranger.getByRole('button', { name: 'Continue to Zendesk' }).click()
        await stranger.locator('input[name="email"], button[name="decision"]').first().waitFor()
        expect(onSwitchyard(stranger.url()), `expected the sandbox, got ${stranger.url()}`).toBe(false)
        // Same-origin stylesheet and no script: nothing was blocked on the way.
        expect(failures).toEqual([])
      } finally {
        await strangerContext.close()
      }
    },
    TEST_TIMEOUT_MS,
  )

  // Last: every flow above ran under the policy, so an empty list means the app works within it.
  // Issue 13 §2 and §4: results a person can read, and no silent side effects.

  /** Runs a step through REST as the stack's admin. */
  async function runStep(
    tool: string,
    integration: string,
    input: object,
  ): Promise<{ status: number; body: any }> {
    const res = await fetch(`${stack.url}/v1/tools/${tool}/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ integration, input }),
    })
    return { status: res.status, body: await res.json() }
  }

  /** The id of an active integration of the platform, connecting one through the page when there is none. */
  async function activeIntegration(platform: 'zendesk' | 'vercel'): Promise<string> {
    const find = async () =>
      (
        (await rest('/v1/integrations')).body.integrations as Array<{
          id: string
          platform: string
          status: string
        }>
      ).find((i) => i.platform === platform && i.status === 'active')?.id
    const found = await find()
    if (found) return found
    if (platform === 'zendesk') await connectZendesk()
    else {
      await openSignedIn('/integrations')
      await connectVercel('')
    }
    return (await find())!
  }

  /** Opens a tool step on the tools page, with the given integration chosen. */
  async function openStep(title: string, integrationId: string) {
    await openSignedIn('/tools')
    await page.getByLabel('Search tool steps').fill(title)
    await page
      .locator('.tool-result')
      .filter({ has: page.locator('.item-title', { hasText: new RegExp(`^${title}$`) }) })
      .first()
      .click()
    const detail = page.locator('.tool-detail')
    await detail.getByRole('heading', { name: title }).waitFor()
    await detail.locator('select[name="integration"]').selectOption(integrationId)
    return detail
  }

  async function expectResult(detail: ReturnType<Page['locator']>) {
    const summary = detail.getByTestId('summary-line')
    const problem = detail.locator('.problem')
    await summary.or(problem).first().waitFor()
    if (await problem.isVisible()) throw new Error(`the run failed: ${await problem.innerText()}`)
    return summary
  }

  it(
    'sums up Get Ticket Info in one line linking to the sandbox, shows its comments as a conversation, and stays within 1280 px',
    async () => {
      const zendesk = await activeIntegration('zendesk')
      const created = await runStep('zendesk.create_ticket', zendesk, {
        subject: 'Printer on fire',
        description: 'The printer on the third floor is on fire.\n'.repeat(3) + 'x'.repeat(600),
      })
      expect(created.status, JSON.stringify(created.body)).toBe(200)
      const id = created.body.output.id as number
      expect(created.body.summary).toEqual({
        text: `Ticket #${id}: Printer on fire created`,
        url: expect.stringMatching(/\/agent\/tickets\/\d+$/),
      })
      await runStep('zendesk.update_ticket', zendesk, {
        ticket_id: id,
        internal_note: 'Facilities called; extinguisher on its way.',
      })

      await page.setViewportSize({ width: 1280, height: 900 })
      const detail = await openStep('Get Ticket Info', zendesk)
      await detail.locator('[name="ticket_id"]').fill(String(id))
      // A typed id stands as it is: Escape closes the ticket picker's list, as a keyboard user would.
      await detail.locator('[name="ticket_id"]').press('Escape')
      await detail.getByRole('button', { name: 'Run' }).click()
      const summary = await expectResult(detail)
      expect(await summary.innerText()).toMatch(
        new RegExp(`Ticket #${id}: Printer on fire \\(new, 2 comments\\)`),
      )
      // The link goes to the sandbox that holds the ticket, not to zendesk.com.
      const href = await summary.getByRole('link', { name: 'Open in Zendesk' }).getAttribute('href')
      expect(href).toBe(`${stack.sandboxUrl}/zendesk/${SANDBOX_SUBDOMAIN}/agent/tickets/${id}`)
      // …and the sandbox answers it with the ticket's page.
      const linked = await fetch(href!)
      expect(linked.status).toBe(200)
      expect(await linked.text()).toContain(`#${id} Printer on fire`)

      const comments = detail.getByTestId('comment')
      expect(await comments.count()).toBe(2)
      expect(await comments.nth(0).innerText()).toMatch(/Public reply[\s\S]*third floor is on fire/)
      expect(await comments.nth(1).innerText()).toMatch(/Internal note[\s\S]*extinguisher/)
      // The raw JSON is folded away, and opening it does not widen the page either.
      expect(await detail.getByTestId('tool-output').isVisible()).toBe(false)
      await detail.getByText('Full output (JSON)').click()
      await detail.getByRole('button', { name: 'Copy JSON' }).waitFor()
      const width = await page.evaluate(() => document.documentElement.scrollWidth)
      expect(width, 'the page became wider than the window').toBeLessThanOrEqual(1280)
      await detail.getByTestId('summary-line').scrollIntoViewIfNeeded()
      await page.screenshot({ path: `${SHOTS}/outputs-get-ticket.png`, fullPage: false })
      // On a phone too, the output wraps inside its box (the top bar is another matter, issue 13 §8).
      await page.setViewportSize({ width: 390, height: 844 })
      await detail.getByTestId('summary-line').scrollIntoViewIfNeeded()
      const wide = await detail.evaluate((d) =>
        Array.from(d.querySelectorAll('*'))
          .filter((e) => e.getBoundingClientRect().right > 390.5)
          .map((e) => `${e.tagName}.${e.className}`),
      )
      expect(wide, 'parts of the tool wider than a phone').toEqual([])
      await page.screenshot({ path: `${SHOTS}/outputs-get-ticket-390.png` })
      await page.setViewportSize({ width: 1280, height: 900 })
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'asks before Delete Ticket runs; Cancel keeps the ticket, Yes deletes it',
    async () => {
      const zendesk = await activeIntegration('zendesk')
      const id = (
        await runStep('zendesk.create_ticket', zendesk, {
          subject: 'Delete me',
          description: 'A ticket to delete.',
        })
      ).body.output.id as number
      const detail = await openStep('Delete Ticket', zendesk)
      await detail.locator('[name="ticket_id"]').fill(String(id))
      // A typed id stands as it is: Escape closes the ticket picker's list, as a keyboard user would.
      await detail.locator('[name="ticket_id"]').press('Escape')
      await detail.getByRole('button', { name: 'Run' }).click()
      const dialog = detail.getByRole('alertdialog')
      await dialog.waitFor()
      expect(await dialog.innerText()).toMatch(/cannot be restored/)
      await page.screenshot({ path: `${SHOTS}/outputs-confirm-delete.png` })
      // Enter in the field does not answer the question.
      await detail.locator('[name="ticket_id"]').press('Enter')
      await dialog.getByRole('button', { name: 'Cancel' }).click()
      expect((await runStep('zendesk.get_ticket', zendesk, { ticket_id: id })).status).toBe(200)

      await detail.getByRole('button', { name: 'Run' }).click()
      await dialog.getByRole('button', { name: 'Yes, delete ticket' }).click()
      expect(await (await expectResult(detail)).innerText()).toContain(`Ticket #${id} deleted permanently`)
      expect((await runStep('zendesk.get_ticket', zendesk, { ticket_id: id })).status).toBe(404)
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'does not create a duplicate on a second press of Run: it says Run again and asks first',
    async () => {
      const zendesk = await activeIntegration('zendesk')
      const subject = `Only once ${Date.now()}`
      const detail = await openStep('Create Ticket', zendesk)
      await detail.locator('[name="subject"]').fill(subject)
      await detail.locator('[name="description"]').fill('Press Run twice.')
      await detail.getByRole('button', { name: 'Run' }).click()
      await expectResult(detail)
      await detail.getByRole('button', { name: 'Run again' }).click()
      const dialog = detail.getByRole('alertdialog')
      await dialog.waitFor()
      expect(await dialog.innerText()).toMatch(
        /Already done with this input: Ticket #\d+: Only once \d+ created\. Run it again\?/,
      )
      await page.screenshot({ path: `${SHOTS}/outputs-run-again.png` })
      await dialog.getByRole('button', { name: 'Cancel' }).click()
      const found = await runStep('zendesk.search_tickets', zendesk, { query: `subject:"${subject}"` })
      expect(found.body.output.count, JSON.stringify(found.body)).toBe(1)
      // A changed input is a new request: plain Run again, without a question.
      await detail.locator('[name="subject"]').fill(`${subject} (2)`)
      await detail.getByRole('button', { name: /^Run$/ }).waitFor()
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'shows a Vercel API Call answered 404 as an error, not as a success',
    async () => {
      const vercel = await activeIntegration('vercel')
      const detail = await openStep('Vercel API Call', vercel)
      await detail.locator('[name="method"]').selectOption('GET')
      await detail.locator('[name="endpoint"]').fill('/v13/deployments/dpl_doesnotexist1')
      await detail.getByRole('button', { name: 'Run' }).click()
      await detail.getByRole('alertdialog').or(detail.getByTestId('summary-line')).first().waitFor()
      // The API Call is a write step that can do anything; it does not ask, but a repeat would.
      const summary = await expectResult(detail)
      expect(await summary.innerText()).toMatch(/Vercel answered 404 Not Found/)
      expect(await detail.locator('.output-error').count()).toBe(1)
      await page.screenshot({ path: `${SHOTS}/outputs-api-call-404.png` })
      // The failed call made nothing that a second press could duplicate: it runs without a question.
      expect(await detail.getByRole('button', { name: /^Run$/ }).count()).toBe(1)
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  // ---- Pickers instead of ids (docs/tool-options.md) --------------------------------------

  it(
    'Create Card: the list and labels are chosen from the account, typing searches, a pasted id still works',
    async () => {
      const trello = (await rest('/v1/integrations')).body.integrations.find(
        (i: any) => i.platform === 'trello' && i.status === 'active',
      )
      expect(trello, 'a connected Trello integration from the tests above').toBeDefined()
      await openSignedIn('/tools?tool=trello.create_card')
      const detail = page.locator('.tool-detail')
      await detail.getByRole('heading', { name: 'Create Card' }).waitFor()
      await detail.locator('select[name="integration"]').selectOption(trello.id)

      // The list: a combobox labelled by its field, whose options come from the connected account.
      const list = detail.getByRole('combobox', { name: /^(id )?list\b/i })
      await list.click()
      const listbox = detail.getByRole('listbox').filter({ visible: true })
      await listbox.getByRole('option', { name: /Roadmap \/ To Do/ }).waitFor()
      await page.screenshot({ path: `${SHOTS}/pickers-list-open.png`, fullPage: true })

      // Typing searches; the keyboard chooses.
      await list.fill('doing')
      await listbox.getByRole('option', { name: /Roadmap \/ Doing/ }).waitFor()
      await expect.poll(() => listbox.getByRole('option').count(), { timeout: STEP_TIMEOUT_MS }).toBe(1)
      await list.press('ArrowDown')
      expect(await list.getAttribute('aria-activedescendant')).toBeTruthy()
      await list.press('Enter')
      expect(await list.inputValue()).toMatch(/^[0-9a-f]{24}$/)
      expect(await list.getAttribute('aria-expanded')).toBe('false')
      const chosen = detail.getByTestId('picker-chosen').first()
      expect(await chosen.innerText()).toBe('Roadmap / Doing')
      expect((await list.getAttribute('aria-describedby'))?.split(' ')).toContain(
        await chosen.getAttribute('id'),
      )
      const doingId = await list.inputValue()

      // The labels follow the chosen list's board; a list field takes several.
      const labels = detail.getByRole('combobox', { name: /^(id )?labels\b/i })
      await labels.click()
      await listbox.getByRole('option', { name: /Bug/ }).click()
      await labels.click()
      await labels.pressSequentially('feat')
      await listbox.getByRole('option', { name: /Feature/ }).click()
      expect(await labels.inputValue()).toMatch(/^[0-9a-f]{24}, [0-9a-f]{24}, $/)
      await page.screenshot({ path: `${SHOTS}/pickers-labels-chosen.png`, fullPage: true })

      await detail.locator('[name="name"]').fill('Picked, not pasted')
      await detail.getByRole('button', { name: 'Run' }).click()
      await expectResult(detail)
      // The whole answer is one click away, behind the summary line.
      await detail.getByText('Full output (JSON)').click()
      const card = JSON.parse(await detail.getByTestId('tool-output').innerText())
      expect(card.idList).toBe(doingId)
      expect(card.idLabels).toHaveLength(2)

      // Free entry: a pasted id is the value, and the picker names it once it is known.
      await list.fill('')
      await list.fill(doingId)
      await list.press('Escape')
      expect(await list.inputValue()).toBe(doingId)
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'a dependent picker asks for its dependency first, and reloads when it changes',
    async () => {
      await openSignedIn('/tools?tool=trello.update_card')
      const detail = page.locator('.tool-detail')
      await detail.getByRole('heading', { name: 'Update Card' }).waitFor()
      const members = detail.getByRole('combobox', { name: /^(id )?members\b/i })
      await members.click()
      const listbox = detail.getByRole('listbox').filter({ visible: true })
      await listbox.getByText(/Choose the (id )?card first/i).waitFor()
      await page.screenshot({ path: `${SHOTS}/pickers-dependency-missing.png`, fullPage: true })

      const card = detail.getByRole('combobox', { name: /^(id )?card\b/i })
      await card.click()
      await card.fill('design the api')
      await listbox.getByRole('option', { name: /Roadmap \/ Design the API/ }).click()
      await members.click()
      await listbox.getByRole('option', { name: /Ada Lovelace/ }).waitFor()
      await page.screenshot({ path: `${SHOTS}/pickers-members.png`, fullPage: true })
      await members.press('Escape')
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'Update Ticket: the ticket is found by its subject and the assignee among the agents',
    async () => {
      const activeZendesk = async () =>
        (await rest('/v1/integrations')).body.integrations.find(
          (i: any) => i.platform === 'zendesk' && i.status === 'active',
        )
      if (!(await activeZendesk())) {
        await openSignedIn('/integrations')
        await connectZendesk()
      }
      const zendesk = await activeZendesk()
      await openSignedIn('/tools?tool=zendesk.update_ticket')
      const detail = page.locator('.tool-detail')
      await detail.getByRole('heading', { name: 'Update Ticket' }).waitFor()
      await detail.locator('select[name="integration"]').selectOption(zendesk.id)
      const ticket = detail.getByRole('combobox', { name: /^ticket( id)?\b/i })
      await ticket.click()
      await ticket.pressSequentially('printer')
      const listbox = detail.getByRole('listbox').filter({ visible: true })
      // Typing searches the account: only the printer tickets stay.
      await expect
        .poll(
          async () => {
            const shown = await listbox.getByRole('option').allInnerTexts()
            return shown.length > 0 && shown.every((t) => /Printer on fire/.test(t))
          },
          { timeout: STEP_TIMEOUT_MS },
        )
        .toBe(true)
      const printer = listbox.getByRole('option', { name: /^#\d+ Printer on fire/ }).first()
      await page.screenshot({ path: `${SHOTS}/pickers-ticket-search.png`, fullPage: true })
      await printer.click()
      expect(await ticket.inputValue()).toMatch(/^\d+$/)

      const assignee = detail.getByRole('combobox', { name: /^assignee\b/i })
      await assignee.click()
      await listbox.getByRole('option', { name: /Alan Agent/ }).click()
      expect(await assignee.inputValue()).toMatch(/^\d+$/)
      await detail
        .locator('[name="status"]')
        .selectOption({ label: 'Pending' })
        .catch(async () => detail.locator('[name="status"]').selectOption('"pending"'))
      await detail.getByRole('button', { name: 'Run' }).click()
      await expectResult(detail)
      // The whole answer is one click away, behind the summary line.
      await detail.getByText('Full output (JSON)').click()
      const updated = JSON.parse(await detail.getByTestId('tool-output').innerText())
      expect(updated.subject).toBe('Printer on fire')
      expect(String(updated.assignee_id)).toBe(await assignee.inputValue())
      expect(pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'no page is wider than a phone: at 390 px nothing scrolls sideways, and each page is photographed',
    async () => {
      await page.setViewportSize({ width: 390, height: 844 })
      try {
        const wide: string[] = []
        for (const [name, path] of [
          ['integrations', '/integrations'],
          ['agents', '/agents'],
          ['runs', '/runs'],
          ['tools', '/tools'],
          ['tool-create-card', '/tools?tool=trello.create_card'],
          ['tool-api-call', '/tools?tool=vercel.api_call'],
          ['api-keys', '/settings/keys'],
          ['users', '/settings/users'],
        ] as const) {
          await page.goto(path)
          await page.locator('main h1').first().waitFor()
          await page.waitForLoadState('networkidle')
          const overflow = await page.evaluate(
            () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
          )
          if (overflow > 0) wide.push(`${path}: ${overflow} px too wide`)
          await page.screenshot({ path: `${SHOTS}/phone-${name}.png`, fullPage: true })
        }
        expect(wide).toEqual([])
        // A chosen step's form comes first on a phone, not below every step and trigger of the catalogue.
        await page.goto('/tools?tool=trello.create_card')
        const form = page.locator('.tool-detail')
        await form.waitFor()
        expect((await form.boundingBox())!.y).toBeLessThan(844)
        // Choosing another step from the list below brings its form into view.
        await page.getByRole('button', { name: /^Get Card\b/ }).click()
        await page.getByRole('heading', { name: 'Get Card', level: 2 }).waitFor()
        await expect
          .poll(
            async () => (await page.getByRole('heading', { name: 'Get Card', level: 2 }).boundingBox())!.y,
          )
          .toBeLessThan(844)
        await expect
          .poll(
            async () => (await page.getByRole('heading', { name: 'Get Card', level: 2 }).boundingBox())!.y,
          )
          .toBeGreaterThanOrEqual(0)
      } finally {
        await page.setViewportSize({ width: 1280, height: 900 })
      }
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'runs every page above under its Content Security Policy without a single violation',
    async () => {
      const response = await page.goto('/integrations')
      const csp = response?.headers()['content-security-policy'] ?? ''
      expect(csp).toContain("script-src 'self'")
      expect(csp).toContain("frame-ancestors 'none'")
      await page.locator('.topbar, #api-key').first().waitFor()
      expect(cspViolations).toEqual([])
      // The policy is live, and its violations are seen: an inline script is refused and reported.
      await page.evaluate(() => {
        const script = document.createElement('script')
        script.textContent = 'window.__inlineRan = true'
        document.body.append(script)
      })
      await expect.poll(() => cspViolations.some((v) => /script-src/.test(v))).toBe(true)
      expect(
        await page.evaluate(() => (window as unknown as { __inlineRan?: boolean }).__inlineRan),
      ).toBeUndefined()
    },
    TEST_TIMEOUT_MS,
  )
})
