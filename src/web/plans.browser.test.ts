// Issue 24 §6 in Debian's Chromium: a trigger the person's plan does not allow says so when it is
// chosen, with who can change the plan, and no form is offered to fill in first.
import { describe, expect, it } from 'vitest'
import { browserSuite, hasChromium, warnIfNoChromium } from '../../test/helpers/browser.ts'

const TEST_TIMEOUT_MS = 120_000

warnIfNoChromium('the plans browser test')

describe.skipIf(!hasChromium)('plans shown before the work', () => {
  const b = browserSuite({ shots: 'plans', stepTimeoutMs: 20_000 })

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
      await b.page.getByRole('button', { name: 'Add trigger' }).click()
      const trigger = b.page.locator('#subscription-trigger')
      await trigger.click()
      await trigger.fill('new ticket')
      const listbox = b.page.locator(`[id="${await trigger.getAttribute('aria-controls')}"]`)
      const option = listbox.getByRole('option', { name: /^New Ticket Created/ }).first()
      expect(await option.innerText()).toMatch(/Enterprise plan, not on yours/)
      await option.click()
      await b.page.getByTestId('plan-unavailable').waitFor()
      expect(await b.page.locator('.subscription-editor').innerText()).toMatch(
        /needs the Enterprise plan[\s\S]*An admin of this Switchyard can change your plan/,
      )
      expect(await b.page.locator('#subscription-integration').count()).toBe(0)
      expect(await b.page.locator('.mapping').count()).toBe(0)
      expect(await b.page.getByRole('button', { name: 'Save trigger' }).isVisible()).toBe(false)
      await b.shot('enterprise-trigger-on-pro')
    },
    TEST_TIMEOUT_MS,
  )
})
