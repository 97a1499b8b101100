// Issue 23 §2 and §6 in Debian's Chromium: a person connects an OpenAI-compatible server on the
// Model connections page (the model sandbox's /openai/v1 stands in for one), from the model agent
// editor's "Add a model connection", sees the server's field errors at their fields, never sees the
// key again, uses the connection in a model agent that runs, and is told which agents use it before
// removing it; at 1280 px and at 390 px without sideways scroll. A key replaced on the page while a
// run waits for approval is the key that run's next model call uses (docs/model-agents.md, "Rotating a key").
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import {
  browserSuite,
  hasChromium,
  warnIfNoChromium,
  createAgentFromEditor,
  newModelAgentWithTicketInput,
} from '../../test/helpers/browser.ts'
import { connectZendesk } from '../../test/helpers/connect.ts'
import { settled, waitForRun } from '../../test/helpers/model-agents.ts'
import { client, controlCaller } from '../../test/helpers/stack.ts'

const TEST_TIMEOUT_MS = 180_000
/** A key the model sandbox accepts; it must never show on a page once sent. */
const KEY = 'sk-sandbox-typed-once'

warnIfNoChromium('the model connections browser test')

describe.skipIf(!hasChromium)('the model connections page', () => {
  let page: Page
  let integration: string
  const b = browserSuite({
    shots: 'model-connections',
    stepTimeoutMs: 20_000,
    ready: async (s) => {
      page = s.page
      integration = (await connectZendesk(s.stack, { email: 'admin@acme.test' })).integrationId!
    },
  })
  const rest = (method: string, path: string, body?: unknown) =>
    client(b.stack, b.stack.apiKey).call(method, path, body)
  const shot = (name: string, on?: Page) => b.shot(name, on)
  const expectNoSideways = (on?: Page) => b.expectNoSideways(on)
  const searchSelect = (selector: string, query: string, option: string | RegExp) =>
    b.searchSelect(selector, query, option)

  /** The add form, filled for the sandbox's OpenAI-compatible base URL, with the server's errors met first. */
  async function addCompatible(on: Page, name: string): Promise<void> {
    const form = on.locator('form.model-connection-form')
    await form.waitFor()
    await on.getByLabel('OpenAI-compatible server').check()
    // The base URL the form filled in for OpenAI goes; a compatible server has none to guess.
    expect(await on.locator('#model-connection-base_url').inputValue()).toBe('')
    await on.locator('#model-connection-base_url').fill('not a url')
    await on.getByRole('button', { name: 'Connect', exact: true }).click()
    // The server's errors, each at its field.
    const nameError = on.locator('#model-connection-name-error')
    await nameError.waitFor()
    expect(await nameError.innerText()).toMatch(/give the connection a name/)
    expect(await on.locator('#model-connection-name').getAttribute('aria-invalid')).toBe('true')
    expect(await on.locator('#model-connection-base_url-error').innerText()).toMatch(/http\(s\) base URL/)
    await shot(`${name.includes('phone') ? '390' : '1280'}-field-errors`, on)

    await on.locator('#model-connection-name').fill(name)
    await on.locator('#model-connection-base_url').fill(`${b.stack.sandboxUrl}/openai/v1`)
    await on.locator('#model-connection-api_key').fill(KEY)
    expect(await on.locator('#model-connection-api_key').getAttribute('type')).toBe('password')
    await on.getByRole('button', { name: 'Connect', exact: true }).click()
    await on.getByText(`Connected ${name}`).waitFor()
    // The key was typed once: no input holds it, no page text shows it.
    expect(await on.locator('#model-connection-api_key').count()).toBe(0)
    expect(await on.content()).not.toContain(KEY)
  }

  it(
    'a person adds an OpenAI-compatible server from the editor, uses it in a model agent that runs, and is told what uses it before removing it',
    async () => {
      await newModelAgentWithTicketInput(b, 'Ticket reader')

      // The model picker's link opens the page in a tab of its own, so the agent being made stays.
      const [tab] = await Promise.all([
        page.context().waitForEvent('page'),
        page.getByRole('link', { name: /Add a model connection/ }).click(),
      ])
      await tab.waitForLoadState()
      expect(new URL(tab.url()).pathname).toBe('/model-connections')
      // Nothing of theirs yet: only the sandbox model, labelled as one.
      const sandbox = tab.locator('[data-model-connection-id="mc_sandbox"]')
      await sandbox.waitFor()
      expect(await sandbox.innerText()).toMatch(/sandbox model/)
      expect(await sandbox.getByRole('button', { name: 'Remove' }).count()).toBe(0)
      await addCompatible(tab, 'Local compatible')
      const row = tab.locator('.model-connection').filter({ hasText: 'Local compatible' })
      expect(await row.innerText()).toMatch(/OpenAI-compatible server/)
      expect(await row.innerText()).toMatch(/Stored sealed, never shown/)
      await shot('1280-added', tab)
      await tab.close()

      // Back in the editor, the new connection is there to choose, and the agent uses it.
      await page.bringToFront()
      const option = page.locator('#agent-model-connection option', { hasText: 'Local compatible' })
      await option.waitFor({ state: 'attached' })
      await page.locator('#agent-model-connection').selectOption({ label: 'Local compatible' })
      await page.locator('#agent-model-name').fill('sandbox-model')
      await page.locator('#agent-instructions').fill('Read the ticket with get_ticket.\nticket_id: ')
      await page.getByRole('button', { name: 'inputs.ticket_id', exact: true }).click()
      await page.getByRole('button', { name: 'Add tool' }).click()
      await searchSelect('#agent-tools-0-tool', 'get ticket', /^Get Ticket/)
      const agentId = await createAgentFromEditor(page)
      const connections = (await rest('GET', '/v1/model-connections')).body.model_connections
      const added = connections.find((c: { name: string }) => c.name === 'Local compatible')
      expect(added).toMatchObject({ protocol: 'openai-compatible', has_key: true, owner: 'you' })
      expect(JSON.stringify(connections)).not.toContain(KEY)
      expect((await rest('GET', `/v1/agents/${agentId}`)).body.model).toEqual({
        connection: added.id,
        name: 'sandbox-model',
      })

      const made = await rest('POST', '/v1/tools/zendesk.create_ticket/run', {
        integration,
        input: { subject: 'Printer on fire', description: 'Printer on fire, in detail' },
      })
      await page.getByRole('button', { name: 'Run now' }).click()
      await page.locator('#run-now-ticket_id').fill(String(made.body.output.id))
      await page.getByRole('button', { name: 'Start run' }).click()
      await page.waitForURL((u) => u.pathname.startsWith('/runs/'))
      await page.getByTestId('run-result').waitFor()
      expect(await page.getByTestId('run-status').innerText()).toMatch(/Succeeded/i)
      expect(await page.getByTestId('timeline-entry').filter({ hasText: 'Get Ticket' }).count()).toBe(1)

      // Removing it names the agent that would stop; the nav leads there.
      await page.getByRole('link', { name: 'Models', exact: true }).click()
      const mine = page.locator('.model-connection').filter({ hasText: 'Local compatible' })
      await mine.getByRole('button', { name: 'Remove' }).click()
      const question = page.getByRole('group', { name: /^Remove Local compatible\?/ })
      await question.waitFor()
      expect(await question.innerText()).toMatch(/The model agent “Ticket reader” uses it/)
      await shot('1280-remove-confirm')
      await question.getByRole('button', { name: 'Remove' }).click()
      await mine.waitFor({ state: 'detached' })
      expect((await rest('GET', '/v1/model-connections')).body.model_connections).toHaveLength(1)
      expect(b.pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'the page and its form fit a 390 px phone, with no sideways scroll',
    async () => {
      await page.setViewportSize({ width: 390, height: 844 })
      try {
        await b.openSignedIn('/model-connections')
        await page.getByRole('button', { name: 'Add a model connection' }).click()
        await expectNoSideways()
        await shot('390-form')
        await addCompatible(page, 'Local phone server')
        await expectNoSideways()
        await shot('390-added')
        expect(b.pageErrors).toEqual([])
      } finally {
        await page.setViewportSize({ width: 1280, height: 900 })
      }
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'Replace key on the page: the run waiting for approval makes its next model call with the new key, which no page shows',
    async () => {
      const api = client(b.stack, b.stack.apiKey)
      const control = controlCaller(`${b.stack.sandboxUrl}/openai/_control`)
      // The model sandbox answers each key with the scenario bound to it, so the answer says which key
      // the call carried: the old key's scenario asks to delete, the new key's alone says it was used.
      const oldKey = `sk-old-${Math.random().toString(36).slice(2)}`
      const newKey = `sk-new-${Math.random().toString(36).slice(2)}`
      const made = await api.run('zendesk.create_ticket', integration, { subject: 'Old', description: 'old' })
      const ticket = made.body.output.id as number
      const before = await control('POST', '/scenarios', {
        api_key: oldKey,
        turns: [
          { tool_calls: [{ name: 'delete_ticket', arguments: { ticket_id: ticket }, id: 'call_delete' }] },
          { text: 'answered under the old key' },
        ],
      })
      expect(before.status, JSON.stringify(before.body)).toBe(201)
      const connection = await api.post('/v1/model-connections', {
        name: 'Team OpenAI',
        protocol: 'openai-chat',
        base_url: `${b.stack.sandboxUrl}/openai/v1`,
        api_key: oldKey,
      })
      expect(connection.status, connection.text).toBe(201)
      const agent = await api.post('/v1/agents', {
        name: 'Ticket sweeper',
        kind: 'model',
        inputs: [{ name: 'ticket_id', type: 'number' }],
        instructions: 'Delete ticket {{ inputs.ticket_id }} with delete_ticket.',
        model: { connection: connection.body.id, name: 'sandbox-model' },
        tools: [{ tool: 'zendesk.delete_ticket', integration }],
      })
      expect(agent.status, agent.text).toBe(201)
      const run = await api.post(`/v1/agents/${agent.body.id}/runs`, { inputs: { ticket_id: ticket } })
      expect(run.status, run.text).toBe(201)
      expect((await waitForRun(api, run.body.id, settled)).status).toBe('waiting_for_approval')
      const after = await control('POST', '/scenarios', {
        api_key: newKey,
        turns: [{ text: 'answered under the new key' }],
      })
      expect(after.status, JSON.stringify(after.body)).toBe(201)

      await b.openSignedIn('/model-connections')
      const row = page.locator('.model-connection').filter({ hasText: 'Team OpenAI' })
      await row.getByRole('button', { name: 'Replace key' }).click()
      const field = row.getByLabel('New key')
      expect(await field.getAttribute('type')).toBe('password')
      // The field is where the key goes next, and Remove is out of the way while it is open.
      expect(await field.evaluate((el) => el === document.activeElement)).toBe(true)
      expect(await row.getByRole('button', { name: 'Remove' }).count()).toBe(0)
      await b.shotsAt('replace-key-form')
      await page.setViewportSize({ width: 390, height: 844 })
      await expectNoSideways()
      await page.setViewportSize({ width: b.width, height: 900 })
      await field.fill(newKey)
      await row.getByRole('button', { name: 'Save key' }).click()
      await row.getByText(/New key stored sealed/).waitFor()
      expect(await row.getByLabel('New key').count()).toBe(0)
      expect(await page.content()).not.toContain(newKey)
      await b.shotsAt('replace-key-saved')
      expect(await row.innerText()).toMatch(/Stored sealed, never shown/)

      // The run decided in the inbox goes on, and its next model call carries the new key.
      await page
        .getByRole('link', { name: /Approvals/ })
        .first()
        .click()
      const card = page.getByTestId('approval').filter({ hasText: 'Ticket sweeper' })
      await card.getByRole('button', { name: 'Send decisions' }).click()
      await page.getByText(/Decided for Ticket sweeper/).waitFor()
      const finished = await waitForRun(
        api,
        run.body.id,
        (r) => settled(r) && r.status !== 'waiting_for_approval',
      )
      expect(finished.status, JSON.stringify(finished.error)).toBe('succeeded')
      expect(finished.result).toBe('answered under the new key')
      const oldCalls = (await control('GET', `/calls?scenario=${before.body.id}`)).body.calls
      const newCalls = (await control('GET', `/calls?scenario=${after.body.id}`)).body.calls
      expect([oldCalls.length, newCalls.length]).toEqual([1, 1])
      await page.goto(`/runs/${encodeURIComponent(run.body.id)}`)
      await page.getByTestId('run-result').waitFor()
      expect(await page.getByTestId('run-result').innerText()).toContain('answered under the new key')
      expect(await page.content()).not.toContain(newKey)
      expect(b.pageErrors).toEqual([])
    },
    TEST_TIMEOUT_MS,
  )
})
