// Issue 23, "Done when", in Debian's Chromium: the worked example of docs/model-agents.md as a
// newcomer does it with no model key and nothing but the web app and the sandbox pages. They build
// the triage agent in the editor, subscribe it to new tickets, a customer opens a ticket on the
// Zendesk sandbox page, the run waits for approval of its update, they approve it in the inbox and
// read the trace. Screenshots go to /work/tmp/shots/.
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import {
  browserSuite,
  createAgentFromEditor,
  hasChromium,
  warnIfNoChromium,
  newModelAgentWithTicketInput,
} from '../../test/helpers/browser.ts'
import { connectZendesk } from '../../test/helpers/connect.ts'
import { settled, waitForRun } from '../../test/helpers/model-agents.ts'
import { client } from '../../test/helpers/stack.ts'
import { waitFor } from '../../test/helpers/trello-engine.ts'

const JOURNEY_TIMEOUT_MS = 240_000

warnIfNoChromium('the model agent journey browser test')

describe.skipIf(!hasChromium)('the model agent worked example, in Chromium', () => {
  let page: Page
  const b = browserSuite({
    shots: 'model-journey',
    stepTimeoutMs: 30_000,
    ready: async (s) => {
      page = s.page
      await connectZendesk(s.stack, { email: 'admin@acme.test' })
    },
  })
  const api = () => client(b.stack, b.stack.apiKey)

  it(
    'a new ticket on the sandbox page starts the triage agent; its update waits in the inbox, runs once approved, and the trace shows each call',
    async () => {
      // The agent of docs/model-agents.md, "The agent", built in the editor.
      await newModelAgentWithTicketInput(b, 'Ticket triage')
      await page.getByTestId('sandbox-model-note').waitFor()
      await page
        .locator('#agent-instructions')
        .fill(
          'Read the ticket with get_ticket, then search_tickets for similar ones, then propose an update with update_ticket.\nticket_id: ',
        )
      await page.getByRole('button', { name: 'inputs.ticket_id', exact: true }).click()
      await page.getByRole('button', { name: 'Add tool' }).click()
      await b.searchSelect('#agent-tools-0-tool', 'get ticket', /^Get Ticket/)
      await page.getByRole('button', { name: 'Add tool' }).click()
      await b.searchSelect('#agent-tools-1-tool', 'search tickets', /^Search Tickets/)
      // A read may act on any of the person's accounts: the model chooses one by name.
      await page.locator('#agent-tools-1-integration').selectOption('')
      await page.getByRole('button', { name: 'Add tool' }).click()
      await b.searchSelect('#agent-tools-2-tool', 'update ticket', /^Update Ticket/)
      // A write waits for a person only when its author says so.
      await page.locator('#agent-tools-2-require_approval').check()
      await b.shot('01-editor')
      const agentId = await createAgentFromEditor(page)
      expect((await api().get(`/v1/agents/${agentId}`)).body.tools).toMatchObject([
        { tool: 'zendesk.get_ticket' },
        { tool: 'zendesk.search_tickets' },
        { tool: 'zendesk.update_ticket', require_approval: true },
      ])

      // Subscribed to new tickets on the agent's Triggers tab, and switched on.
      await page.locator('nav.tabs').getByRole('link', { name: 'Triggers' }).click()
      await page.waitForURL((u) => u.pathname.endsWith('/triggers'))
      await page.getByRole('button', { name: 'Add trigger' }).click()
      await b.searchSelect('#subscription-trigger', 'new ticket', /^New Ticket/i)
      await page.locator('#mapping-ticket_id').waitFor()
      await page.locator('#mapping-ticket_id').fill('{{ ticket.id }}')
      await page.getByRole('button', { name: 'Save trigger' }).click()
      const sub = page.getByTestId('subscription').filter({ hasText: /New Ticket/i })
      await sub.waitFor()
      await sub.getByRole('button', { name: 'Activate' }).click()
      await sub.locator('.badge-run', { hasText: 'Active' }).waitFor()
      await b.shot('02-trigger-active')

      // A customer opens a ticket on the Zendesk sandbox's page.
      await page.goto(`${b.stack.sandboxUrl}/`)
      await page.getByRole('link', { name: 'Zendesk' }).click()
      const open = page.locator('#open-acme')
      await open.getByLabel('Subject').fill('Printer on fire')
      await open.getByLabel('Description').fill('Smoke from tray 2.')
      await open.getByRole('button', { name: 'Submit request' }).click()
      await page.locator('#done').waitFor()

      // The run read the ticket, searched, and waits for the person before its update.
      const runId = await waitFor('the run the new ticket started', async () => {
        const { runs } = (await api().get(`/v1/runs?agent_id=${agentId}`)).body
        return runs[0]?.id as string | undefined
      })
      const waiting = await waitForRun(api(), runId, settled)
      expect(waiting.status, JSON.stringify(waiting.error)).toBe('waiting_for_approval')
      await b.openSignedIn('/approvals')
      const card = page.getByTestId('approval').filter({ hasText: 'Ticket triage' })
      await card.waitFor()
      expect(await card.innerText()).toMatch(/Update Ticket/)
      await b.shot('03-inbox')
      await card.getByRole('button', { name: 'Send decisions' }).click()
      await page.getByText(/Decided for Ticket triage: 1 approved, 0 denied/).waitFor()

      // The trace: started by the trigger; each model call and tool call in order; who approved.
      const run = await waitForRun(api(), runId, (r) => settled(r) && r.status !== 'waiting_for_approval')
      expect(run.status, JSON.stringify(run.error)).toBe('succeeded')
      expect(run.started_by).toBe('trigger')
      expect((await api().get(`/v1/runs?agent_id=${agentId}`)).body.runs).toHaveLength(1)
      await page.goto(`/runs/${encodeURIComponent(runId)}`)
      await page.getByTestId('run-status').getByText('Succeeded').waitFor()
      await page.locator('.run-header', { hasText: /New Ticket/i }).waitFor()
      const entries = await page.getByTestId('timeline-entry').allInnerTexts()
      const order = entries.map((t) =>
        /Model call/.test(t) ? 'model' : (/Get Ticket|Search Tickets|Update Ticket/.exec(t)?.[0] ?? t),
      )
      expect(order).toEqual([
        'model',
        'Get Ticket',
        'model',
        'Search Tickets',
        'model',
        'Update Ticket',
        'model',
      ])
      const { body: me } = await api().get('/v1/me')
      expect(
        await page
          .getByTestId('timeline-entry')
          .filter({ hasText: 'Update Ticket' })
          .getByTestId('approval-note')
          .innerText(),
      ).toMatch(new RegExp(`^Approved by ${me.name} \\(${me.email}\\) at `))
      await b.shot('04-trace')
      expect(b.pageErrors).toEqual([])
      expect(b.cspViolations).toEqual([])
    },
    JOURNEY_TIMEOUT_MS,
  )
})
