// Issue 24 §7 in Debian's Chromium: at a phone's 390 px the header is two short rows, a checkbox sits
// beside its label, a label beside its control, the event's fields stay in view while a mapping is
// edited, and the agent's tab strip never scrolls vertically (at any width).
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { browserSuite, hasChromium, SHOTS_DIR, warnIfNoChromium } from '../../test/helpers/browser.ts'
import { client } from '../../test/helpers/stack.ts'
import { cardFilingAgent, createAgent } from '../../test/helpers/trello-engine.ts'
import { connectTrelloWithToken } from '../../test/helpers/trello.ts'

const TEST_TIMEOUT_MS = 120_000
const PHONE = { width: 390, height: 844 }

warnIfNoChromium('the phone width browser test')

describe.skipIf(!hasChromium)('the web app at a phone’s width', () => {
  let page: Page
  let agentId: string
  const b = browserSuite({
    shots: 'phone-width',
    width: PHONE.width,
    height: PHONE.height,
    stepTimeoutMs: 20_000,
    ready: async (s) => {
      page = s.page
      const integrationId = await connectTrelloWithToken(s.stack)
      agentId = await createAgent(client(s.stack, s.stack.apiKey), cardFilingAgent(integrationId))
    },
  })

  const box = async (selector: string) => (await page.locator(selector).first().boundingBox())!
  const shot = b.shot

  it(
    'the header is two short rows: the name with the plan and Sign out, then the links',
    async () => {
      await b.openSignedIn(`/agents/${encodeURIComponent(agentId)}`)
      await page.locator('.overview-steps').waitFor()
      const header = await box('.topbar')
      expect(header.height).toBeLessThanOrEqual(120)
      const brand = await box('.brand')
      const signOut = (await page.getByRole('button', { name: 'Sign out' }).boundingBox())!
      expect(Math.abs(signOut.y + signOut.height / 2 - (brand.y + brand.height / 2))).toBeLessThan(8)
      expect(await page.getByTestId('user-plan').getAttribute('title')).toContain('@example.test')
      await shot('agent')
    },
    TEST_TIMEOUT_MS,
  )

  it.each([PHONE.width, 1280])(
    'the agent’s tab strip never scrolls vertically (%i px)',
    async (width) => {
      await page.setViewportSize({ width, height: 844 })
      try {
        await b.openSignedIn(`/agents/${encodeURIComponent(agentId)}`)
        await page.locator('nav.tabs').waitFor()
        const { scroll, client } = await page
          .locator('nav.tabs')
          .evaluate((e) => ({ scroll: e.scrollHeight, client: e.clientHeight }))
        expect(scroll).toBeLessThanOrEqual(client)
      } finally {
        await page.setViewportSize(PHONE)
      }
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'a checkbox sits beside its label, and the event’s fields stay in view while a mapping is edited',
    async () => {
      await b.openSignedIn(`/agents/${encodeURIComponent(agentId)}/triggers`)
      await page.getByRole('button', { name: 'Add trigger' }).click()
      const trigger = page.locator('#subscription-trigger')
      await trigger.click()
      await trigger.fill('new card')
      const listbox = page.locator(`[id="${await trigger.getAttribute('aria-controls')}"]`)
      await listbox
        .getByRole('option', { name: /^New Card/ })
        .first()
        .click()
      await page.locator('.event-fields').waitFor()

      const checkbox = await box('#subscription-own-changes')
      const label = await box('label[for="subscription-own-changes"]')
      expect(label.x).toBeGreaterThan(checkbox.x + checkbox.width - 1)
      expect(label.y).toBeLessThan(checkbox.y + checkbox.height)

      const mappingInput = page.locator('.mapping-row input').first()
      await mappingInput.scrollIntoViewIfNeeded()
      await mappingInput.focus()
      const fields = await box('.event-fields')
      const viewport = page.viewportSize()!
      expect(fields.y).toBeLessThan(viewport.height)
      expect(fields.y + fields.height).toBeGreaterThan(0)
      const input = (await mappingInput.boundingBox())!
      expect(input.y + input.height).toBeLessThanOrEqual(fields.y + 1)
      await page.screenshot({ path: `${SHOTS_DIR}/phone-width-mapping.png` })
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'on Users, each label of Add a user is on the row of its control',
    async () => {
      await b.openSignedIn('/settings/users')
      await page.locator('#user-role').waitFor()
      for (const id of ['user-email', 'user-plan', 'user-role']) {
        const control = await box(`#${id}`)
        const label = await box(`label[for="${id}"]`)
        expect(Math.abs(label.y + label.height / 2 - (control.y + control.height / 2)), id).toBeLessThan(6)
      }
      await shot('users')
    },
    TEST_TIMEOUT_MS,
  )
})
