// Issue 23 §4 and §6 in Debian's Chromium: a model agent on the sandbox model asks to delete a ticket;
// the person sees the call in words with its input in the approvals inbox, approves it, and the run
// goes on to its end. Checked at 1,280 px and 390 px.
import { describe, expect, it } from 'vitest'
import { browserSuite, hasChromium, warnIfNoChromium } from '../../test/helpers/browser.ts'
import { connectZendesk } from '../../test/helpers/connect.ts'
import { client } from '../../test/helpers/stack.ts'

const TEST_TIMEOUT_MS = 180_000

warnIfNoChromium('the approvals browser test')

describe.skipIf(!hasChromium)('the approvals inbox', () => {
  const b = browserSuite({ shots: 'approvals', stepTimeoutMs: 20_000 })
  const rest = (method: string, path: string, body?: unknown) =>
    client(b.stack, b.stack.apiKey).call(method, path, body)

  async function runUntil(runId: string, done: (status: string) => boolean): Promise<any> {
    for (let i = 0; i < 300; i++) {
      const { body } = await rest('GET', `/v1/runs/${runId}`)
      if (done(body.status)) return body
      await new Promise((r) => setTimeout(r, 200))
    }
    throw new Error(`run ${runId} did not get there`)
  }

  it.each([1280, 390])(
    'a destructive call waits in the inbox, is shown in words, and runs once approved (%i px)',
    async (width) => {
      await b.page.setViewportSize({ width, height: 900 })
      const integration = (await connectZendesk(b.stack, { email: 'admin@acme.test' })).integrationId!
      const ticket = await rest('POST', '/v1/tools/zendesk.create_ticket/run', {
        integration,
        input: { subject: 'Printer on fire', description: 'Smoke everywhere' },
      })
      expect(ticket.status).toBe(200)
      const ticketId = ticket.body.output.id as number
      const agent = await rest('POST', '/v1/agents', {
        name: `Ticket sweeper ${width}`,
        kind: 'model',
        inputs: [{ name: 'ticket_id', type: 'number', required: true }],
        instructions: 'Delete the ticket with delete_ticket.\nticket_id: {{ inputs.ticket_id }}',
        model: { connection: 'Sandbox model', name: 'sandbox-model' },
        tools: [{ tool: 'zendesk.delete_ticket', integration }],
      })
      expect(agent.status, JSON.stringify(agent.body)).toBe(201)
      const run = await rest('POST', `/v1/agents/${agent.body.id}/runs`, { inputs: { ticket_id: ticketId } })
      expect(run.status, JSON.stringify(run.body)).toBe(201)
      await runUntil(run.body.id, (s) => s === 'waiting_for_approval')
      // A waiting run has not ended: its page offers Cancel and shows no result yet.
      await b.openSignedIn(`/runs/${encodeURIComponent(run.body.id)}`)
      await b.page.getByRole('button', { name: 'Cancel run' }).waitFor()
      expect(await b.page.getByTestId('run-result').count()).toBe(0)

      await b.openSignedIn('/approvals')
      const card = b.page.getByTestId('approval').filter({ hasText: `Ticket sweeper ${width}` })
      await card.waitFor()
      expect(await card.innerText()).toMatch(/zendesk\.delete_ticket/)
      expect(await card.innerText()).toContain(String(ticketId))
      const overflow = await b.page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      )
      expect(overflow, 'the inbox scrolls sideways').toBeLessThanOrEqual(0)
      await b.shot(`${width}`)
      await card.getByRole('button', { name: 'Send decisions' }).click()
      await b.page.getByText(/Decided for Ticket sweeper/).waitFor()

      const finished = await runUntil(
        run.body.id,
        (s) => !['queued', 'running', 'waiting_for_approval'].includes(s),
      )
      expect(finished.status, JSON.stringify(finished.error)).toBe('succeeded')
      const gone = await rest('POST', '/v1/tools/zendesk.get_ticket/run', {
        integration,
        input: { ticket_id: ticketId },
      })
      expect(gone.status).not.toBe(200)
      // The run reads as a conversation: each model call with its words, tokens and cost.
      await b.page.goto(`/runs/${encodeURIComponent(run.body.id)}`)
      await b.page.getByTestId('model-words').last().waitFor()
      expect(await b.page.locator('[data-testid="timeline-entry"]').count()).toBeGreaterThanOrEqual(3)
      expect(await b.page.locator('.timeline-entry').first().innerText()).toMatch(/Model call[\s\S]*tokens/)
      await b.shot(`run-${width}`)
    },
    TEST_TIMEOUT_MS,
  )
})
