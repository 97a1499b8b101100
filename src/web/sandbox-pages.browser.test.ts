// The sandboxes' pages for people (issue 24 §2, docs/sandbox.md "Home pages") in Debian's Chromium: a
// newcomer makes a Switchyard Trello trigger fire from the Trello sandbox's home page, acting as Grace
// (the integration is Ada's, whose own changes the loop guard skips), and every sandbox page fits
// 1,280 px and 390 px without sideways scrolling. Screenshots go to /work/tmp/shots/.
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { browserSuite, hasChromium, warnIfNoChromium } from '../../test/helpers/browser.ts'
import { client } from '../../test/helpers/stack.ts'
import {
  CARD_MAPPING,
  commentingAgent,
  connectAda,
  createAgent,
  freshBoard,
  runsOf,
  subscribe,
  waitFor,
} from '../../test/helpers/trello-engine.ts'

const JOURNEY_TIMEOUT_MS = 180_000

warnIfNoChromium('the sandbox pages browser test')

describe.skipIf(!hasChromium)('sandbox pages in Chromium', () => {
  let page: Page
  const b = browserSuite({ shots: 'sandbox', stepTimeoutMs: 30_000, ready: (s) => void (page = s.page) })

  const shot = b.shot
  /** How far the page is wider than the window (0: no sideways scroll). */
  const overflow = () =>
    page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

  it(
    'Grace creates a card on the Trello sandbox home page and the Trello trigger on Ada’s integration starts a run',
    async () => {
      const { stack } = b
      const api = client(stack, stack.apiKey)
      const ada = await connectAda(stack)
      const board = await freshBoard(stack)
      const agent = await createAgent(api, commentingAgent(ada))
      const sub = await subscribe(api, agent, {
        trigger: 'trello.new_card',
        integration: ada,
        config: { board_ids: [board.id] },
        mapping: CARD_MAPPING,
      })

      await page.goto(`${stack.sandboxUrl}/`)
      await page.getByRole('link', { name: 'Trello' }).click()
      await page.getByRole('heading', { name: 'Trello sandbox', level: 1 }).waitFor()
      const create = page.locator('#form-create')
      expect(await create.locator('select[name="member"]').inputValue()).toBe('grace')
      await create.locator('select[name="list"]').selectOption(board.lists[0]!.id)
      await create.getByLabel('Name').fill('Printer <b>jammed</b>')
      await create.getByRole('button', { name: 'Create card' }).click()
      await page.locator('#done').waitFor()
      expect(await page.locator('#done').textContent()).toBe(
        `Grace Hopper created card “Printer <b>jammed</b>” in ${board.lists[0]!.name}.`,
      )
      await shot('trello-after-create')

      const runs = await waitFor('a run of the trigger', async () => {
        const found = await runsOf(stack, sub.id)
        return found.length > 0 ? found : undefined
      })
      expect(runs).toHaveLength(1)
      const run = (await api.get(`/v1/runs/${runs[0]!.id}`)).body
      expect(run.inputs).toMatchObject({ title: 'Printer <b>jammed</b>' })
    },
    JOURNEY_TIMEOUT_MS,
  )

  it(
    'every sandbox page fits 1,280 px and 390 px without sideways scrolling',
    async () => {
      const root = b.stack.sandboxUrl
      const pages: Array<[string, string, (() => Promise<void>)?]> = [
        ['root', `${root}/`],
        ['trello', `${root}/trello`],
        ['zendesk', `${root}/zendesk`],
        ['vercel', `${root}/vercel`],
        [
          'vercel-webhooks',
          `${root}/vercel/projects/ada-blog/settings/webhooks`,
          async () => {
            await page.getByLabel('Email').fill('ada@vercel.test')
            await page.getByLabel('Password').fill('sandbox')
            await page.getByRole('button', { name: 'Continue' }).click()
            await page.getByRole('button', { name: 'Create Webhook' }).waitFor()
            // A long endpoint, as Switchyard's webhook addresses are, listed on the page.
            await page.getByLabel('Endpoint URL').fill(`${b.stack.url}/v1/hooks/vercel/${'x'.repeat(80)}`)
            await page.getByLabel('deployment.created').check()
            await page.getByRole('button', { name: 'Create Webhook' }).click()
            await page.locator('#webhook-secret').waitFor()
          },
        ],
        ['vercel-tokens', `${root}/vercel/account/tokens`],
      ]
      const wide: string[] = []
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 })
        for (const [name, url, prepare] of pages) {
          await page.goto(url)
          // Signed in and with a webhook made once, the page lists it at every width after.
          if (prepare && width === 1280) await prepare()
          const extra = await overflow()
          if (extra > 0) wide.push(`${name} at ${width} px: ${extra} px too wide`)
          await shot(`${name}-${width}`)
        }
      }
      expect(wide).toEqual([])
    },
    JOURNEY_TIMEOUT_MS,
  )

  it('no page error or blocked content on the way', () => {
    expect(b.pageErrors).toEqual([])
  })
})
