// Signing in like a person (issue 24 §1), in Debian's Chromium against the real server and the
// identity provider sandbox: an admin sets a password and invites someone, the invited person
// accepts the link, signs out and back in with their password, sees their sessions and signs out
// everywhere; a newcomer signs in through the identity provider sandbox. At 1,280 px and at 390 px.
// Screenshots go to /work/tmp/shots/.
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { browserSuite, hasChromium, warnIfNoChromium } from '../../test/helpers/browser.ts'

const JOURNEY_TIMEOUT_MS = 240_000
const ADMIN_PASSWORD = 'copper falcon harbour seventeen'
const PERSON_PASSWORD = 'violet kettle meadow ninety'

warnIfNoChromium('the people browser test')

describe.skipIf(!hasChromium)('signing in like a person, in Chromium', () => {
  const b = browserSuite({ shots: 'people' })

  /** A page fits its width: nothing scrolls sideways. */
  const expectFits = (page: Page, what: string) => b.expectNoSideways(page, what)

  const shoot = (page: Page, name: string, width: number) => b.shot(`${name}-${width}`, page)

  for (const width of [1280, 390]) {
    it(
      `at ${width} px: the first admin sets a password and invites a person, who accepts and signs in with it`,
      async () => {
        const context = await b.newContext()
        const page = await context.newPage()
        await page.setViewportSize({ width, height: 900 })
        // The admin, from the generated key (the stack's first user), sets a password on Account.
        const admin = await b.stack.createUser('enterprise', 'admin')
        await b.openSignedIn('/settings/account', admin.apiKey, page)
        await page.getByRole('heading', { name: 'Set a password' }).waitFor()
        await page.getByLabel('New password').fill('short')
        await page.getByRole('button', { name: 'Set password' }).click()
        await expect.poll(() => page.locator('[data-field-error]').textContent()).toMatch(/at least 10/)
        await page.getByLabel('New password').fill(ADMIN_PASSWORD)
        await page.getByRole('button', { name: 'Set password' }).click()
        await page.getByText('Password saved').waitFor()
        await shoot(page, 'account', width)
        await expectFits(page, 'Account')

        // The admin invites someone on Users and copies the link.
        const email = `invited-${width}@example.test`
        await page.goto('/settings/users')
        await page.getByLabel('Email', { exact: true }).fill(email)
        await page.getByRole('button', { name: /^Add/ }).click()
        const link = (await page.getByTestId('password-link').first().textContent())!.trim()
        expect(link).toMatch(/\/welcome#token=[A-Za-z0-9_-]{43}$/)
        await shoot(page, 'invited', width)
        await expectFits(page, 'Users with an invitation')

        // The invited person, in their own browser, opens the link and chooses a password.
        const theirs = await b.newContext()
        const them = await theirs.newPage()
        await them.setViewportSize({ width, height: 900 })
        await them.goto(link)
        await them.getByTestId('welcome-email').filter({ hasText: email }).waitFor({ state: 'attached' })
        // The token leaves the address bar as soon as the page has read it.
        expect(new URL(them.url()).hash).toBe('')
        await shoot(them, 'welcome', width)
        await expectFits(them, 'Welcome')
        await them.getByLabel('New password').fill('password123!')
        await them.getByRole('button', { name: 'Set password and sign in' }).click()
        await expect.poll(() => them.locator('[data-field-error]').textContent()).toMatch(/too easy to guess/)
        await them.getByLabel('New password').fill(PERSON_PASSWORD)
        await them.getByRole('button', { name: 'Set password and sign in' }).click()
        await them.getByTestId('user-email').filter({ hasText: email }).waitFor({ state: 'attached' })

        // The link works once.
        const again = await theirs.newPage()
        await again.goto(link)
        await again.getByRole('heading', { name: 'This link does not work' }).waitFor()
        await again.close()

        // Signed out, they sign back in with email and password; a wrong one says nothing about the email.
        await them.getByRole('button', { name: 'Sign out' }).click()
        await them.getByLabel('Email').waitFor()
        await them.getByLabel('Email').fill(email)
        await them.getByLabel('Password').fill('not my password at all')
        await them.getByRole('button', { name: 'Sign in', exact: true }).click()
        await expect
          .poll(() => them.locator('[data-field-error]').textContent())
          .toMatch(/do not match an account/)
        await shoot(them, 'login-refused', width)
        await expectFits(them, 'Sign in')
        await them.getByLabel('Password').fill(PERSON_PASSWORD)
        await them.getByRole('button', { name: 'Sign in', exact: true }).click()
        await them.getByTestId('user-email').filter({ hasText: email }).waitFor({ state: 'attached' })

        // Their sessions: this one is marked; signing out everywhere ends it.
        await them.getByRole('link', { name: /^Account:/ }).click()
        await them.getByText('(this browser)').waitFor()
        await shoot(them, 'sessions', width)
        await expectFits(them, 'Account sessions')
        await them.getByRole('button', { name: 'Sign out everywhere' }).click()
        await them.getByRole('button', { name: 'Sign out everywhere' }).last().click()
        await them.getByLabel('Email').waitFor()
        await theirs.close()
        await context.close()
      },
      JOURNEY_TIMEOUT_MS,
    )

    it(
      `at ${width} px: a newcomer signs in through the identity provider sandbox and lands where they were going`,
      async () => {
        const context = await b.newContext()
        const page = await context.newPage()
        await page.setViewportSize({ width, height: 900 })
        await page.goto('/tools')
        await page.waitForURL(/\/login\?next=%2Ftools/)
        const sso = page.getByRole('link', { name: 'Sign in with the identity provider sandbox' })
        await sso.waitFor()
        await shoot(page, 'login', width)
        await expectFits(page, 'Sign in')
        await sso.click()
        await page.getByRole('heading', { name: 'Sign in to the identity provider sandbox' }).waitFor()
        await shoot(page, 'idp', width)
        await expectFits(page, 'the identity provider sandbox')
        await page.getByRole('button', { name: /Ada Lovelace/ }).click()
        await page
          .getByTestId('user-email')
          .filter({ hasText: 'ada@example.test' })
          .waitFor({ state: 'attached' })
        expect(new URL(page.url()).pathname).toBe('/tools')
        await context.close()

        // Someone from a domain no rule admits is told why, on the sign-in page.
        const other = await b.newContext()
        const stranger = await other.newPage()
        await stranger.setViewportSize({ width, height: 900 })
        await stranger.goto('/login')
        await stranger.getByRole('link', { name: /Sign in with the identity provider sandbox/ }).click()
        await stranger.getByRole('button', { name: /Mallory Elsewhere/ }).click()
        await stranger.getByTestId('sso-error').filter({ hasText: 'not a domain that may join' }).waitFor()
        await shoot(stranger, 'sso-refused', width)
        await expectFits(stranger, 'Sign in with an SSO refusal')
        await other.close()
      },
      JOURNEY_TIMEOUT_MS,
    )
  }

  it('no page errors and no Content Security Policy violations on the way', () => {
    expect(b.pageErrors).toEqual([])
    expect(b.cspViolations).toEqual([])
  })
})
