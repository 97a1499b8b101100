// Issue 23 §6 in Debian's Chromium: a newcomer with no model key builds a model agent on the
// sandbox model in the web editor, starts it, approves its destructive call with an edited input in
// the approvals inbox, and reads the trace; the editor at 390 px has no sideways scroll.
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import {
  browserSuite,
  hasChromium,
  SHOTS_DIR,
  warnIfNoChromium,
  createAgentFromEditor,
  newModelAgentWithTicketInput,
} from '../../test/helpers/browser.ts'
import { connectZendesk } from '../../test/helpers/connect.ts'
import { client } from '../../test/helpers/stack.ts'

const TEST_TIMEOUT_MS = 180_000

warnIfNoChromium('the model agent editor browser test')

describe.skipIf(!hasChromium)('the model agent editor', () => {
  let page: Page
  let integration: string
  let rest: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>
  const b = browserSuite({
    shots: 'model-editor',
    stepTimeoutMs: 20_000,
    ready: async (s) => {
      page = s.page
      rest = client(s.stack, s.stack.apiKey).call
      integration = (await connectZendesk(s.stack, { email: 'admin@acme.test' })).integrationId!
    },
  })

  const shot = b.shot

  const expectNoSideways = () => b.expectNoSideways()
  const searchSelect = b.searchSelect

  async function ticket(subject: string): Promise<number> {
    const made = await rest('POST', '/v1/tools/zendesk.create_ticket/run', {
      integration,
      input: { subject, description: `${subject}, in detail` },
    })
    expect(made.status).toBe(200)
    return made.body.output.id as number
  }

  const exists = async (id: number) =>
    (await rest('POST', '/v1/tools/zendesk.get_ticket/run', { integration, input: { ticket_id: id } }))
      .status === 200

  /** The editor, filled in as a newcomer would: the sandbox model, a read and a destructive step on their account. */
  async function fillModelAgent(name: string): Promise<void> {
    await newModelAgentWithTicketInput(b, name)
    await page.getByTestId('sandbox-model-note').waitFor()
    expect(await page.locator('#agent-model-connection option:checked').innerText()).toBe('Sandbox model')
    expect(await page.locator('#agent-model-name').inputValue()).toBe('sandbox-model')
    const instructions = page.locator('#agent-instructions')
    await instructions.fill(
      'Read the ticket with get_ticket, then delete it with delete_ticket.\nticket_id: ',
    )
    await page.getByRole('button', { name: 'inputs.ticket_id', exact: true }).click()
    expect(await instructions.inputValue()).toMatch(/ticket_id: \{\{ inputs\.ticket_id \}\}$/)

    await page.getByRole('button', { name: 'Add tool' }).click()
    await searchSelect('#agent-tools-0-tool', 'get ticket', /^Get Ticket/)
    await page.getByRole('button', { name: 'Add tool' }).click()
    await searchSelect('#agent-tools-1-tool', 'delete ticket', /^Delete Ticket/)
    const rules = page.getByTestId('approval-rule')
    expect(await rules.nth(0).innerText()).toMatch(/Runs without approval/)
    expect(await rules.nth(1).innerText()).toMatch(/Every call waits for a person's approval/)
  }

  it(
    'a newcomer builds a model agent on the sandbox model, approves its delete with an edited input, and reads the trace',
    async () => {
      const asked = await ticket('Printer on fire')
      const instead = await ticket('Duplicate of the printer ticket')
      await fillModelAgent('Ticket sweeper')

      // A provider's rule the server checks is shown at the field it concerns: strict mode on a
      // step whose schema has an optional property.
      await page.getByRole('button', { name: 'Add tool' }).click()
      await searchSelect('#agent-tools-2-tool', 'search tickets', /^Search Tickets/)
      await page
        .getByRole('listitem', { name: /^Tool 3/ })
        .getByText('Name and strict mode')
        .click()
      await page.locator('#agent-tools-2-strict').check()
      await page.locator('#agent-budget-model_calls').fill('abc')
      await page.getByRole('button', { name: 'Create agent' }).click()
      const budgetError = page.locator('#agent-budget-model_calls-error')
      await budgetError.waitFor()
      expect(await budgetError.innerText()).toMatch(/Enter a number/)
      await page.locator('#agent-budget-model_calls').fill('6')
      await page.getByRole('button', { name: 'Create agent' }).click()
      const strictError = page.locator('#agent-tools-2-strict-error')
      await strictError.waitFor()
      expect(await strictError.innerText()).toMatch(/limit is optional; OpenAI's strict mode/)
      expect(await page.locator('#agent-tools-2-strict').getAttribute('aria-invalid')).toBe('true')
      await shot('01-strict-error')
      await page.getByRole('button', { name: 'Remove tool 3' }).click()
      await shot('02-editor')
      const agentId = await createAgentFromEditor(page)
      const saved = await rest('GET', `/v1/agents/${agentId}`)
      expect(saved.body).toMatchObject({
        kind: 'model',
        model: { connection: 'mc_sandbox', name: 'sandbox-model' },
        tools: [
          { tool: 'zendesk.get_ticket', integration },
          { tool: 'zendesk.delete_ticket', integration },
        ],
        budget: { model_calls: 6 },
      })
      // The overview names the connection and the account, not their ids.
      const overview = page.locator('.panel').filter({ hasText: 'Tools the model may use' })
      await overview.getByText('through Sandbox model').waitFor()
      expect(await overview.innerText()).toMatch(/delete_ticket on Ada Admin \(acme\)/)
      await shot('03-overview')

      // Editing it again opens the model's fields as saved.
      await page.goto(`/agents/${encodeURIComponent(agentId)}/edit`)
      await page.locator('#agent-instructions').waitFor()
      expect(await page.locator('#agent-budget-model_calls').inputValue()).toBe('6')
      expect(await page.locator('#agent-tools-1-integration option:checked').innerText()).toMatch(
        /Ada|admin/i,
      )
      await page.goto(`/agents/${encodeURIComponent(agentId)}`)

      // Started by hand; the run waits for a person, and its page says so.
      await page.getByRole('button', { name: 'Run now' }).click()
      await page.locator('#run-now-ticket_id').fill(String(asked))
      await page.getByRole('button', { name: 'Start run' }).click()
      await page.waitForURL((u) => u.pathname.startsWith('/runs/'))
      const runId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2])
      await page.getByTestId('approval').getByText('Waiting for your approval').waitFor()
      await shot('04-run-waiting')

      // The inbox: the call in words; an edited input the schema refuses is named at the input.
      await page.getByRole('link', { name: 'Approvals' }).first().click()
      const card = page.getByTestId('approval').filter({ hasText: 'Ticket sweeper' })
      await card.waitFor()
      expect(await card.innerText()).toContain(String(asked))
      await card.getByRole('button', { name: 'Edit the input before approving' }).click()
      const edit = card.locator('textarea')
      await edit.fill('{ "ticket_id": "the other one" }')
      await card.getByRole('button', { name: 'Send decisions' }).click()
      const editError = card.locator('.approval-edit [data-field-error]')
      await editError.waitFor()
      expect(await editError.innerText()).toMatch(/^ticket_id: /)
      expect(await edit.getAttribute('aria-invalid')).toBe('true')
      await shot('05-inbox-edit-error')
      await edit.fill(JSON.stringify({ ticket_id: instead }))
      await card.getByRole('button', { name: 'Send decisions' }).click()
      await page.getByText(/Decided for Ticket sweeper: 1 approved \(1 with your edits\), 0 denied/).waitFor()

      // The trace: the model's words, each call with its input; the edited input is what ran.
      await page.goto(`/runs/${encodeURIComponent(runId)}`)
      await page.getByTestId('run-result').waitFor()
      expect(await page.getByTestId('run-status').innerText()).toMatch(/Succeeded/i)
      const entries = page.getByTestId('timeline-entry')
      const texts = await entries.allInnerTexts()
      expect(texts.filter((t) => /Model call/.test(t)).length).toBeGreaterThanOrEqual(2)
      const deleted = texts.find((t) => /Delete Ticket/.test(t))
      expect(deleted).toBeDefined()
      const deleteEntry = entries.filter({ hasText: 'Delete Ticket' })
      await deleteEntry.getByText('Input that ran (edited by a person)').click()
      await deleteEntry.getByText('Input the model asked for').click()
      const [ran, asked_for] = await deleteEntry.locator('.json-body').allInnerTexts()
      expect(ran).toContain(String(instead))
      expect(asked_for).toContain(String(asked))
      // Who let it run, by name, and when.
      const { body: me } = await rest('GET', '/v1/me')
      expect(await deleteEntry.getByTestId('approval-note').innerText()).toMatch(
        new RegExp(`^Approved with edited input by ${me.name} \\(${me.email}\\) at `),
      )
      await shot('06-trace')
      expect(await exists(instead)).toBe(false)
      expect(await exists(asked)).toBe(true)
      expect(b.pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'the editor fits a 390 px phone, with no sideways scroll',
    async () => {
      await page.setViewportSize({ width: 390, height: 844 })
      try {
        await fillModelAgent('Phone sweeper')
        // A read may act on any of the person's accounts: the model then chooses one by name.
        await page.locator('#agent-tools-0-integration').selectOption('')
        // Tool 1's own help: tool 2's account may still be unchosen while the accounts load, with the same line.
        await page
          .getByRole('listitem', { name: /^Tool 1/ })
          .getByText('The model chooses one by its account name on each call.')
          .waitFor()
        await page
          .getByRole('listitem', { name: /^Tool 2/ })
          .getByText('Name and strict mode')
          .click()
        await page.getByRole('button', { name: 'JSON Schema' }).click()
        await page.locator('#agent-output-schema').waitFor()
        await expectNoSideways()
        await shot('07-editor-390')
        await page
          .locator('.model-editor .step-list')
          .screenshot({ path: `${SHOTS_DIR}/model-editor-08-tools-390.png` })
        await page
          .locator('.model-budget')
          .screenshot({ path: `${SHOTS_DIR}/model-editor-09-budget-390.png` })
      } finally {
        await page.setViewportSize({ width: 1280, height: 900 })
      }
    },
    TEST_TIMEOUT_MS,
  )
})
