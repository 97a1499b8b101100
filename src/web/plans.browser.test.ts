// Issue 24 §6 in Debian's Chromium: a trigger the person's plan does not allow says so when it is
// chosen, with who can change the plan, and no form is offered to fill in first.
import { mkdirSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  hasChromium,
  SETUP_TIMEOUT_MS,
  startBrowserStack,
  warnIfNoChromium,
  type BrowserStack,
} from '../../test/helpers/browser.ts'

const SHOTS = '/work/tmp/shots'
const TEST_TIMEOUT_MS = 120_000

warnIfNoChromium('the plans browser test')

describe.skipIf(!hasChromium)('plans shown before the work', () => {
  let b: BrowserStack
  let page: Page
  beforeAll(async () => {
    b = await startBrowserStack({
      ownBuild: true,
      stepTimeoutMs: 20_000,
      viewport: { width: 1280, height: 900 },
    })
    page = b.page
    mkdirSync(SHOTS, { recursive: true })
  }, SETUP_TIMEOUT_MS)

  afterAll(async () => {
    await b?.close()
  })

  it(
    'a Pro user choosing an Enterprise trigger learns it at once, and is offered no form to fill',
    async () => {
      const pro = await b.stack.createUser('pro')
      const created = await fetch(`${b.stack.url}/v1/agents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${pro.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'Ticket triage',
          inputs: [],
          kind: 'external',
          external: { url: 'http://127.0.0.1:9/triage' },
        }),
      })
      expect(created.status, await created.clone().text()).toBe(201)
      const agent = (await created.json()) as { id: string }
      await b.openSignedIn(`/agents/${encodeURIComponent(agent.id)}/triggers`, pro.apiKey)
      await page.getByRole('button', { name: 'Add trigger' }).click()
      const trigger = page.locator('#subscription-trigger')
      await trigger.click()
      await trigger.fill('new ticket')
      const listbox = page.locator(`[id="${await trigger.getAttribute('aria-controls')}"]`)
      const option = listbox.getByRole('option', { name: /^New Ticket Created/ }).first()
      expect(await option.innerText()).toMatch(/Enterprise plan, not on yours/)
      await option.click()
      await page.getByTestId('plan-unavailable').waitFor()
      expect(await page.locator('.subscription-editor').innerText()).toMatch(
        /needs the Enterprise plan[\s\S]*An admin of this Switchyard can change your plan/,
      )
      expect(await page.locator('#subscription-integration').count()).toBe(0)
      expect(await page.locator('.mapping').count()).toBe(0)
      expect(await page.getByRole('button', { name: 'Save trigger' }).isVisible()).toBe(false)
      await page.screenshot({ path: `${SHOTS}/plans-enterprise-trigger-on-pro.png`, fullPage: true })
    },
    TEST_TIMEOUT_MS,
  )
})
