// A newcomer makes the Zendesk trigger fire with only the sandbox pages and the web app (issue 24 §2,
// docs/sandbox.md "Home pages"), in Debian's Chromium: a customer opens a ticket on the Zendesk
// sandbox's home page, and the trigger starts a run that the web app's Runs page lists. Screenshots at
// 1,280 px and 390 px go to /work/tmp/shots/.
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { browserSuite, hasChromium, warnIfNoChromium } from '../../test/helpers/browser.ts'
import { connectZendesk } from '../../test/helpers/connect.ts'
import { client } from '../../test/helpers/stack.ts'
import { runsOf, waitFor } from '../../test/helpers/trello-engine.ts'

const JOURNEY_TIMEOUT_MS = 240_000

warnIfNoChromium('the sandbox pages trigger browser test')

describe.skipIf(!hasChromium)('the Zendesk trigger fired from the sandbox pages, in Chromium', () => {
  let page: Page
  const b = browserSuite({
    shots: 'sandbox-fire',
    stepTimeoutMs: 30_000,
    ready: (s) => {
      page = s.page
    },
  })

  const shots = (name: string) => b.shotsAt(name)

  /** An agent of one step, `tool` with `input`, and its subscription to `trigger`, made active. */
  async function subscribed(options: {
    name: string
    integration: string
    tool: string
    input: Record<string, unknown>
    inputs: Array<{ name: string; type: string; required?: boolean }>
    trigger: string
    mapping: Record<string, string>
    extra?: Record<string, unknown>
  }) {
    const api = client(b.stack, b.stack.apiKey)
    const agent = await api.post('/v1/agents', {
      name: options.name,
      inputs: options.inputs,
      kind: 'steps',
      steps: [{ key: 'look', tool: options.tool, integration: options.integration, input: options.input }],
      output: {},
    })
    expect(agent.status, agent.text).toBe(201)
    const sub = await api.post(`/v1/agents/${agent.body.id}/subscriptions`, {
      trigger: options.trigger,
      integration: options.integration,
      config: {},
      mapping: options.mapping,
      ...options.extra,
    })
    expect(sub.status, sub.text).toBe(201)
    let active = sub.body
    if (sub.body.status !== 'active') {
      const activated = await api.post(`/v1/subscriptions/${sub.body.id}/activate`, {})
      expect(activated.status, activated.text).toBe(200)
      active = activated.body
    }
    return { agentId: agent.body.id as string, sub: active as { id: string; webhook_address?: string } }
  }

  /** Waits for the subscription's first run, then finds it on the web app's Runs page by its agent's name. */
  async function runShownInWebApp(subscriptionId: string, agentName: string) {
    const runs = await waitFor('a run of the trigger', async () => {
      const found = await runsOf(b.stack, subscriptionId)
      return found.length > 0 ? found : undefined
    })
    expect(runs).toHaveLength(1)
    await b.openSignedIn('/runs')
    await page
      .getByRole('region', { name: 'Runs' })
      .locator('.run-row-link', { hasText: agentName })
      .waitFor()
    return runs[0]!
  }

  it(
    'a customer opens a ticket on the Zendesk sandbox page, and the New Ticket trigger starts a run the web app lists',
    async () => {
      const integration = (await connectZendesk({ url: b.stack.url, apiKey: b.stack.apiKey })).integrationId!
      const name = 'Ticket reader from the sandbox page'
      const { sub } = await subscribed({
        name,
        integration,
        tool: 'zendesk.get_ticket',
        input: { ticket_id: '{{ inputs.ticket_id }}' },
        inputs: [{ name: 'ticket_id', type: 'number', required: true }],
        trigger: 'zendesk.new_ticket',
        mapping: { ticket_id: '{{ ticket.id }}' },
      })

      await page.goto(`${b.stack.sandboxUrl}/`)
      await page.getByRole('link', { name: 'Zendesk' }).click()
      await page.getByRole('heading', { name: 'Zendesk sandbox', level: 1 }).waitFor()
      const open = page.locator('#open-acme')
      await open.getByLabel('Subject').fill('Printer on fire')
      await open.getByLabel('Description').fill('Smoke from tray 2.')
      await open.getByRole('button', { name: 'Submit request' }).click()
      await page.locator('#done').waitFor()
      await shots('zendesk-after-open')

      const run = await runShownInWebApp(sub.id, name)
      const detail = (await client(b.stack, b.stack.apiKey).get(`/v1/runs/${run.id}`)).body
      expect(detail.started_by).toBe('trigger')
      expect(typeof detail.inputs.ticket_id).toBe('number')
      await shots('zendesk-run-in-web-app')
    },
    JOURNEY_TIMEOUT_MS,
  )

  it('no page error or blocked content on the way', () => {
    expect(b.pageErrors).toEqual([])
  })
})
