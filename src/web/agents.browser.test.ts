// The agents journey of issue 10 in Debian's Chromium (playwright-core, no browser download), against
// the real Switchyard server and the Trello sandbox: create an agent with a templated step, attach
// Trello's New Card trigger with a mapping, test and activate it, create a card on the board as
// another board member, and watch the run appear and succeed. Screenshots go to /work/tmp/shots/.
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import {
  browserSuite,
  hasChromium,
  warnIfNoChromium,
  type BrowserStack,
  createAgentFromEditor,
} from '../../test/helpers/browser.ts'
import type { TestStack } from '../../test/helpers/test-stack.ts'
import { client } from '../../test/helpers/stack.ts'
import { cardFilingAgent, createAgent } from '../../test/helpers/trello-engine.ts'
import { connectTrelloWithToken, TRELLO, trelloControl } from '../../test/helpers/trello.ts'

const STEP_TIMEOUT_MS = 20_000
/** How long the trigger may take from the card's creation to a finished run (webhook, queue, step). */
const RUN_WAIT_MS = 60_000
const JOURNEY_TIMEOUT_MS = 240_000

warnIfNoChromium('the agents browser test')

describe.skipIf(!hasChromium)('agents, triggers and runs in Chromium', () => {
  let stack: TestStack
  let page: Page
  let pageErrors: string[]
  let cspViolations: string[]
  let openSignedIn: BrowserStack['openSignedIn']
  const b = browserSuite({
    shots: 'agents',
    stepTimeoutMs: STEP_TIMEOUT_MS,
    ready: (s) => {
      ;({ stack, page, pageErrors, cspViolations, openSignedIn } = s)
    },
  })

  const shot = b.shot

  const expectNoSideways = () => b.expectNoSideways()
  const searchSelect = b.searchSelect

  it(
    'creates an agent, attaches the New Card trigger, and runs it when a card is created',
    async () => {
      const integrationId = await connectTrelloWithToken(stack)
      expect(integrationId).toBeTruthy()

      // The agents page, empty.
      await openSignedIn('/agents')
      await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor()
      await page.getByText('No agents yet').waitFor()
      await shot('01-empty')

      // A new agent: two input variables and one step templated from them.
      await page.getByRole('link', { name: 'New agent' }).first().click()
      await page.waitForURL((u) => u.pathname === '/agents/new')
      await page.locator('#agent-name').fill('Card greeter')
      await page
        .locator('#agent-description')
        .fill('Welcomes every new card on the Roadmap board with a comment.')
      for (const [i, name] of ['card_id', 'title'].entries()) {
        await page.getByRole('button', { name: 'Add input variable' }).click()
        await page.locator(`#agent-inputs-${i}-name`).fill(name)
      }
      await page.getByRole('button', { name: 'Add step' }).click()
      await page.locator('#agent-steps-0-key').fill('welcome')
      await searchSelect('#agent-steps-0-tool', 'comment to card', 'Add Comment to Card')
      const integration = page.locator('#agent-steps-0-integration')
      await integration.waitFor()
      expect(await integration.locator('option:checked').innerText()).not.toMatch(/disconnected/)
      const idCard = page.locator('#agent-steps-0-input-card_id')
      // A template that does not parse is refused next to its field.
      await idCard.fill('{{ inputs.card_id ')
      await page.locator('#agent-steps-0-input-text').fill('Welcome, “{{ inputs.title }}”!')
      await page.getByRole('button', { name: 'Create agent' }).click()
      const idCardError = page.locator('#agent-steps-0-input-card_id-error')
      await idCardError.waitFor()
      expect(await idCard.getAttribute('aria-invalid')).toBe('true')
      await shot('02-editor-field-error')

      // The insert buttons put a template where the cursor is.
      await idCard.fill('')
      await idCard.click()
      await page.getByRole('button', { name: 'inputs.card_id', exact: true }).click()
      expect(await idCard.inputValue()).toBe('{{ inputs.card_id }}')
      await shot('03-editor')
      await createAgentFromEditor(page)
      const agentUrl = new URL(page.url())
      const agentId = decodeURIComponent(agentUrl.pathname.split('/')[2])
      await page.getByRole('heading', { name: 'Card greeter', level: 1 }).waitFor()
      await page.locator('.overview-steps').getByText('Add Comment to Card').waitFor()
      await shot('04-overview')

      // The New Card trigger, its board, and the mapping from the event's fields.
      await page.locator('nav.tabs').getByRole('link', { name: 'Triggers' }).click()
      await page.waitForURL((u) => u.pathname.endsWith('/triggers'))
      await page.getByRole('button', { name: 'Add trigger' }).click()
      await searchSelect('#subscription-trigger', 'new card', /^New Card/)
      // The boards to watch: chosen from the account by name.
      const boards = page.locator('#subscription-config-board_ids')
      await boards.click()
      await page
        .locator('.subscription-editor .picker-option', { hasText: TRELLO.board.name })
        .first()
        .click()
      expect(await boards.inputValue()).toContain(TRELLO.board.id)
      await boards.press('Escape')
      await page.locator('#mapping-card_id').click()
      await page.getByRole('button', { name: 'Insert card.id', exact: true }).click()
      expect(await page.locator('#mapping-card_id').inputValue()).toBe('{{ card.id }}')
      await page.locator('#mapping-title').click()
      await page.getByRole('button', { name: 'Insert card.name', exact: true }).click()
      expect(await page.locator('#mapping-title').inputValue()).toBe('{{ card.name }}')
      await shot('05-trigger-new')
      await page.getByRole('button', { name: 'Save trigger' }).click()

      const sub = page.getByTestId('subscription').filter({ hasText: 'New Card' })
      await sub.waitFor()
      expect(await sub.locator('.badge-run').innerText()).toBe('Inactive')
      // The live preview maps the sample event with the mapping as typed.
      const preview = page.getByTestId('mapping-preview')
      await preview.locator('.mapped-inputs').waitFor()
      expect(await preview.locator('.mapped-inputs').innerText()).toMatch(/title/)
      expect(await page.locator('.subscription-editor .unsaved-note').count()).toBe(0)
      await page.getByText(/Saved\. It starts no runs until you activate it/).waitFor()
      // The preview follows the mapping as typed, before it is saved, and says it is not saved.
      const title = page.locator('#mapping-title')
      await title.fill('New: {{ card.name }}')
      await page.locator('.subscription-editor .unsaved-note').waitFor()
      await preview.locator('.mapped-inputs dd', { hasText: /^New: / }).waitFor()
      await title.fill('{{ card.name }}')
      await expect.poll(() => page.locator('.subscription-editor .unsaved-note').count()).toBe(0)
      await shot('06-trigger-saved-preview')

      // Test: a recent real event or the sample, mapped.
      await page.getByTestId('test-panel').getByRole('button', { name: 'Test', exact: true }).click()
      const testResult = page.getByTestId('test-panel').locator('.test-result')
      await testResult.waitFor()
      expect(await testResult.innerText()).toMatch(/recent real event|sample event/)
      await shot('07-trigger-tested')
      // A test run, marked as one, from the same event.
      await page.getByTestId('test-panel').getByRole('button', { name: 'Start a test run' }).click()
      const testRunLink = page.getByTestId('test-panel').getByRole('link', { name: 'Open the test run' })
      await testRunLink.waitFor()
      const testRunPath = await testRunLink.getAttribute('href')
      expect(testRunPath).toMatch(/^\/runs\//)

      // Activate, and check the health panel says it listens.
      await sub.getByRole('button', { name: 'Activate' }).click()
      await sub.locator('.badge-run', { hasText: 'Active' }).waitFor()
      await sub
        .locator('.health-verdict')
        .filter({ hasText: /Active|Working/ })
        .waitFor()
      await shot('08-trigger-active')

      // A card created on the board by another member (the loop guard ignores the integration's own changes).
      const graceToken = await trelloControl(stack).mintToken('grace')
      const cardName = `Plan the launch ${Date.now()}`
      const created = await fetch(
        `${stack.sandboxUrl}/trello/1/cards?${new URLSearchParams({ key: TRELLO.app.key, token: graceToken, idList: TRELLO.lists.todo.id, name: cardName })}`,
        { method: 'POST' },
      )
      expect(created.status, await created.clone().text()).toBe(200)

      // The run appears on the Runs tab by itself and succeeds.
      await page.locator('nav.tabs').getByRole('link', { name: 'Runs' }).click()
      await page.waitForURL((u) => u.pathname.endsWith('/runs'))
      // The test run is listed with its marker; the card's run is the one without.
      await page
        .getByTestId('run-row')
        .filter({ has: page.locator('.tag', { hasText: 'test' }) })
        .first()
        .waitFor()
      const row = page
        .getByTestId('run-row')
        .filter({ hasText: 'New Card', hasNot: page.locator('.tag', { hasText: 'test' }) })
        .first()
      await row.waitFor({ timeout: RUN_WAIT_MS })
      await page
        .getByTestId('run-row')
        .filter({ hasText: 'New Card', hasNot: page.locator('.tag', { hasText: 'test' }) })
        .and(page.locator('[data-run-status="succeeded"]'))
        .first()
        .waitFor({ timeout: RUN_WAIT_MS })
      await shot('09-runs-tab')

      // The run page: who started it, the mapped inputs, the step's card with its summary.
      await row.locator('a.run-row-link').click()
      await page.waitForURL((u) => u.pathname.startsWith('/runs/'))
      await page.getByTestId('run-status').getByText('Succeeded').waitFor({ timeout: RUN_WAIT_MS })
      const entry = page.getByTestId('timeline-entry').first()
      expect(await entry.innerText()).toMatch(/Add Comment to Card/)
      expect(await entry.innerText()).toContain(cardName)
      expect(await page.locator('.run-header').innerText()).toContain(cardName)
      expect(await page.locator('.run-header').innerText()).toMatch(/New Card/)
      await shot('10-run-page')
      await expectNoSideways()

      // Editing makes version 2; version 1 stays readable from the versions list.
      await page.goto(`/agents/${encodeURIComponent(agentId)}/edit`)
      await page.locator('#agent-steps-0-input-card_id').waitFor()
      expect(await page.locator('#agent-steps-0-input-card_id').inputValue()).toBe('{{ inputs.card_id }}')
      await page.locator('#agent-description').fill('Welcomes every new card with a comment, politely.')
      await page.getByRole('button', { name: 'Save new version' }).click()
      await page.getByText('Saved as version 2.').waitFor()
      await page.locator('.overview-versions').getByRole('link', { name: 'Version 1' }).click()
      await page.getByRole('heading', { name: /Version 1 \(an earlier version/ }).waitFor()
      await shot('10b-overview-version-1')

      // The same pages at a phone's width.
      await page.setViewportSize({ width: 390, height: 844 })
      await shot('11-run-page-390')
      await expectNoSideways()
      await page.goto(`/agents/${encodeURIComponent(agentId)}/triggers`)
      await page.getByTestId('subscription').first().waitFor()
      await page.getByRole('button', { name: 'Settings, preview and test' }).click()
      await page.getByTestId('mapping-preview').locator('.mapped-inputs').waitFor()
      await shot('12-triggers-390')
      await expectNoSideways()
      await page.goto(`/agents/${encodeURIComponent(agentId)}/edit`)
      await page.locator('#agent-steps-0-key').waitFor()
      await shot('13-editor-390')
      await expectNoSideways()
      await page.goto('/runs')
      await page.getByTestId('run-row').first().waitFor()
      await shot('14-runs-390')
      await expectNoSideways()

      expect(pageErrors).toEqual([])
      expect(cspViolations).toEqual([])
    },
    JOURNEY_TIMEOUT_MS,
  )

  it(
    'the overview names what a chosen option names: a Trello list by its name, not its id',
    async () => {
      const integrationId = await connectTrelloWithToken(stack)
      const agent = await createAgent(client(stack, stack.apiKey), cardFilingAgent(integrationId))
      await openSignedIn(`/agents/${encodeURIComponent(agent)}`)
      const steps = page.locator('.overview-steps')
      await steps.getByText(`${TRELLO.board.name} / ${TRELLO.lists.todo.name}`, { exact: true }).waitFor()
      expect(await steps.innerText()).not.toContain(TRELLO.lists.todo.id)
      await shot('04b-overview-option-names')
    },
    JOURNEY_TIMEOUT_MS,
  )

  it(
    'an external agent shows its signing secret once; a run started by hand can be cancelled; deleting asks first',
    async () => {
      await page.setViewportSize({ width: 1280, height: 900 })
      await openSignedIn('/agents/new')
      await page.locator('#agent-name').fill('Deploy notifier')
      await page.getByRole('button', { name: 'Add input variable' }).click()
      await page.locator('#agent-inputs-0-name').fill('project')
      await page.getByLabel(/External/).check()
      // Nothing listens on port 9: the delivery fails and waits for its next attempt, so the run stays under way.
      await page.locator('#agent-url').fill('http://127.0.0.1:9/switchyard')
      await page.getByRole('button', { name: 'Create agent' }).click()
      const secret = page.getByTestId('signing-secret')
      await secret.waitFor()
      expect(await secret.innerText()).toMatch(/^whsec_/)
      expect(await page.locator('.secret-once').innerText()).toMatch(/shown only once/)
      await shot('20-external-secret')
      await page.getByRole('link', { name: /go to the agent/ }).click()
      await page.getByRole('heading', { name: 'Deploy notifier', level: 1 }).waitFor()
      expect(await page.locator('body').innerText()).not.toMatch(/whsec_/)
      // A lost secret is replaced, after a question, and the new one is shown once.
      await page.getByRole('button', { name: 'New signing secret' }).click()
      await page.getByRole('button', { name: 'Make a new secret' }).click()
      await secret.waitFor()
      expect(await secret.innerText()).toMatch(/^whsec_/)

      // Run now: the input form, a field error next to its field, then the run page.
      await page.getByRole('button', { name: 'Run now' }).click()
      await page.getByRole('button', { name: 'Start run' }).click()
      await page.locator('#run-now-project-error').waitFor()
      await shot('21-run-now-error')
      await page.locator('#run-now-project').fill('web')
      await page.getByRole('button', { name: 'Start run' }).click()
      await page.waitForURL((u) => u.pathname.startsWith('/runs/'))
      await page
        .getByTestId('timeline-entry')
        .filter({ hasText: /Delivery/ })
        .waitFor()
      expect(await page.locator('.run-header').innerText()).toMatch(/You, by hand/)
      await shot('22-external-run')
      await page.getByRole('button', { name: 'Cancel run' }).click()
      await page.getByTestId('run-status').getByText('Cancelled').waitFor()
      await shot('23-external-run-cancelled')

      // The runs list filters by status, kept in the address.
      await page.goto('/runs?status=cancelled')
      await page.getByTestId('run-row').first().waitFor()
      expect(await page.locator('#runs-status').inputValue()).toBe('cancelled')
      for (const status of await page
        .getByTestId('run-row')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-status'))))
        expect(status).toBe('cancelled')
      await shot('24-runs-filtered')
      await expectNoSideways()

      // Deleting asks first.
      await page.goto('/agents')
      await page.getByRole('link', { name: 'Deploy notifier' }).click()
      await page.getByRole('button', { name: 'Delete' }).click()
      await page.getByRole('button', { name: 'Delete agent' }).click()
      await page.waitForURL((u) => u.pathname === '/agents')
      await page.getByRole('link', { name: 'Card greeter' }).waitFor()
      expect(await page.getByRole('link', { name: 'Deploy notifier' }).count()).toBe(0)
      expect(pageErrors).toEqual([])
      expect(cspViolations).toEqual([])
    },
    JOURNEY_TIMEOUT_MS,
  )
})
