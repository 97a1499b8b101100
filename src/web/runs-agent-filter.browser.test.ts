// Issue 22, §7 in Debian's Chromium: the runs list's agent filter asks the server for one searched
// page of agents (GET /v1/agents?q=&limit=20), never every page of the list, says when there are more,
// filters the runs by the agent chosen, and shows an agent the address names (?agent=<id>) by its
// name although it is not on the first page; at 1280 px and at 390 px without sideways scroll.
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { AGENT_FILTER_LIMIT } from './agent-filter.ts'
import { MORE_TEXT } from './integration-picker.ts'
import { browserSuite, hasChromium, warnIfNoChromium } from '../../test/helpers/browser.ts'
import { client } from '../../test/helpers/stack.ts'

const AGENTS = 25
const TEST_TIMEOUT_MS = 180_000
const name = (n: number) => `Filter agent ${String(n).padStart(2, '0')}`

warnIfNoChromium('the runs agent filter browser test')

describe.skipIf(!hasChromium)('the runs list’s agent filter', () => {
  let page: Page
  const ids: string[] = []
  const b = browserSuite({
    shots: 'runs-agent-filter',
    ready: async (s) => {
      page = s.page
      const api = client(s.stack, s.stack.apiKey)
      // Made one after another: the list is newest first, so the oldest ones are past its first page.
      for (let n = 1; n <= AGENTS; n++) {
        const res = await api.post('/v1/agents', {
          name: name(n),
          kind: 'external',
          external: { url: 'https://agent.example.test/runs' },
        })
        if (res.status !== 201) throw new Error(`agent: ${res.status} ${res.text}`)
        ids[n] = res.body.id
      }
      for (const n of [2, 23]) {
        const run = await api.post(`/v1/agents/${ids[n]}/runs`, { inputs: {} })
        if (run.status !== 201 && run.status !== 202) throw new Error(`run: ${run.status} ${run.text}`)
      }
    },
  })

  /** The agent list's requests the page made (GET /v1/agents?…), not one agent's (GET /v1/agents/{id}). */
  function listRequests(): URL[] {
    const seen: URL[] = []
    page.on('request', (r) => {
      const url = new URL(r.url())
      if (url.pathname === '/v1/agents' && r.method() === 'GET') seen.push(url)
    })
    return seen
  }
  const rows = () => page.getByTestId('run-row')
  const listbox = async () =>
    page.locator(`[id="${await page.locator('#runs-agent').getAttribute('aria-controls')}"]`)

  it(
    'asks for one searched page of agents, never every page, and filters the runs by the one chosen',
    async () => {
      const asked = listRequests()
      await b.openSignedIn('/runs')
      await rows().nth(1).waitFor()
      expect(await page.locator('#runs-agent').inputValue()).toBe('All agents')

      await page.locator('#runs-agent').click()
      const list = await listbox()
      await list.getByText(MORE_TEXT).waitFor()
      // "All agents" and one page of the newest: the oldest agents are not listed until searched for.
      expect(await list.getByRole('option').count()).toBe(AGENT_FILTER_LIMIT + 1)
      expect(await list.getByRole('option', { name: name(2), exact: true }).count()).toBe(0)
      await b.shotsAt('open')

      await page.locator('#runs-agent').fill('agent 02')
      await list.getByRole('option', { name: name(2), exact: true }).waitFor()
      await expect.poll(() => list.getByRole('option').count()).toBe(1)
      await list.getByRole('option', { name: name(2), exact: true }).click()
      await page.waitForURL((u) => u.searchParams.get('agent') === ids[2])
      await expect.poll(() => rows().count()).toBe(1)
      expect(await rows().first().innerText()).toContain(name(2))
      expect(await page.locator('#runs-agent').inputValue()).toBe(name(2))

      // Every list request was one short page, searched or not; none followed a cursor.
      expect(asked.length).toBeGreaterThan(0)
      for (const url of asked) {
        expect(url.searchParams.get('limit'), url.search).toBe(String(AGENT_FILTER_LIMIT))
        expect(url.searchParams.has('cursor'), url.search).toBe(false)
      }
      expect(asked.some((u) => u.searchParams.get('q') === 'agent 02')).toBe(true)
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'shows the agent the address names by its name, read on its own, though it is past the first page',
    async () => {
      const one: string[] = []
      page.on('request', (r) => {
        if (new URL(r.url()).pathname === `/v1/agents/${ids[2]}`) one.push(r.url())
      })
      await page.goto(`/runs?agent=${encodeURIComponent(ids[2]!)}`)
      await expect.poll(() => page.locator('#runs-agent').inputValue()).toBe(name(2))
      await expect.poll(() => rows().count()).toBe(1)
      expect(one.length).toBeGreaterThan(0)
      await b.shotsAt('chosen')
      await page.setViewportSize({ width: 390, height: 900 })
      await b.expectNoSideways(page, 'the runs page at 390 px')
      await page.locator('#runs-agent').click()
      await (await listbox()).getByText(MORE_TEXT).waitFor()
      await b.expectNoSideways(page, 'the open agent filter at 390 px')
      await b.shot('open-390')
      await page.setViewportSize({ width: b.width, height: 900 })

      // Back to every agent: the "All agents" choice clears the filter.
      await (await listbox()).getByRole('option', { name: 'All agents' }).click()
      await page.waitForURL((u) => !u.searchParams.has('agent'))
      await expect.poll(() => rows().count()).toBe(2)
      expect(b.pageErrors).toEqual([])
      expect(b.cspViolations).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )
})
