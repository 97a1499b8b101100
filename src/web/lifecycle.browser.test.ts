// Issue 22, §1 and §5 in Debian's Chromium: what a person sees when an integration goes and comes
// back. The Triggers tab shows the server's one verdict; Disconnect's confirmation names what will
// stop; the trigger is then paused with the reason; after reconnecting, the Integrations page offers
// Resume, and the trigger is healthy again. Against the real server and the Trello sandbox.
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { browserSuite, hasChromium, warnIfNoChromium } from '../../test/helpers/browser.ts'
import { client } from '../../test/helpers/stack.ts'
import type { TestStack } from '../../test/helpers/test-stack.ts'
import {
  CARD_MAPPING,
  commentingAgent,
  createAgent,
  freshBoard,
  subscribe,
} from '../../test/helpers/trello-engine.ts'
import { connectTrelloWithToken, TRELLO, trelloControl } from '../../test/helpers/trello.ts'

warnIfNoChromium('the lifecycle browser test')

describe.skipIf(!hasChromium)('an integration disconnected and reconnected, in Chromium', () => {
  let stack: TestStack
  let page: Page
  const b = browserSuite({
    ready: (s) => {
      ;({ stack, page } = s)
    },
  })

  it('shows the verdict, names what Disconnect stops, pauses the trigger, and offers Resume after reconnecting', async () => {
    const api = client(stack, stack.apiKey)
    const integration = await connectTrelloWithToken(stack)
    const board = await freshBoard(stack)
    const agent = await createAgent(api, commentingAgent(integration, 'Card commenter'))
    await subscribe(api, agent, {
      trigger: 'trello.new_card',
      integration,
      config: { board_ids: [board.id] },
      mapping: CARD_MAPPING,
    })
    const row = () => page.getByTestId('subscription').first()
    /** The list's verdict and the health check's, both the server's (the tab weighs nothing itself). */
    const verdict = async (v: string) => {
      await row().locator(`.badge[data-verdict="${v}"]`).waitFor()
      await row().locator(`.health-verdict[data-verdict="${v}"]`).waitFor()
    }

    await b.openSignedIn(`/agents/${agent}/triggers`)
    await verdict('healthy')

    await page.goto('/integrations')
    const item = page.locator(`[data-integration-id="${integration}"]`)
    await item.getByRole('button', { name: 'Disconnect' }).click()
    const question = item.locator('.confirm-question')
    await question.waitFor()
    expect(await question.innerText()).toMatch(/1 active trigger and 1 agent step use Ada Lovelace/)
    await item.locator('.confirm').getByRole('button', { name: 'Disconnect' }).click()
    await page.locator(`[data-integration-id="${integration}"][data-status="disconnected"]`).waitFor()

    await page.goto(`/agents/${agent}/triggers`)
    await verdict('paused')
    expect(await row().locator('.health-verdict').innerText()).toMatch(
      /was disconnected: reconnect it, then resume/,
    )

    // Reconnected with a new token (as Reconnect's pasted-credentials form does), then Resume.
    const token = await trelloControl(stack).mintToken('ada')
    const reconnected = await api.put(`/v1/integrations/${integration}/credentials`, {
      credentials: { key: TRELLO.app.key, token },
    })
    expect(reconnected.status, reconnected.text).toBe(200)
    await page.goto('/integrations')
    await item.getByText('1 trigger was paused when this was disconnected.').waitFor()
    await item.getByRole('button', { name: 'Resume it' }).click()
    await item.getByRole('button', { name: 'Resume it' }).waitFor({ state: 'detached' })

    await page.goto(`/agents/${agent}/triggers`)
    await verdict('healthy')
    expect(b.pageErrors).toEqual([])
    expect(b.cspViolations).toEqual([])
  }, 240_000)
})
