// The trigger journeys of issue 11 in Debian's Chromium (playwright-core, no browser download), against
// the real Switchyard server and the sandboxes: a Zendesk agent started when a person changes a ticket's
// priority (and a Pro user told why they cannot), and a Vercel agent started by a failed deployment
// through a webhook the person adds on Vercel's project settings page. Screenshots go to /work/tmp/shots/.
import type { BrowserContext, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import {
  browserSuite,
  hasChromium,
  warnIfNoChromium,
  type BrowserStack,
  createAgentFromEditor,
} from '../../test/helpers/browser.ts'
import type { TestStack } from '../../test/helpers/test-stack.ts'
import { connectZendesk } from '../../test/helpers/connect.ts'
import { connectVercel, VERCEL, vercelControl } from '../../test/helpers/vercel.ts'
import { actAs, ZENDESK_AGENT } from '../../test/helpers/zendesk-triggers.ts'

const STEP_TIMEOUT_MS = 30_000
/** How long a trigger may take from the change at the platform to a finished run (webhook, queue, step). */
const RUN_WAIT_MS = 90_000
const JOURNEY_TIMEOUT_MS = 300_000

warnIfNoChromium('the triggers browser test')

describe.skipIf(!hasChromium)('trigger journeys in Chromium', () => {
  let stack: TestStack
  let context: BrowserContext
  let page: Page
  let pageErrors: string[]
  let cspViolations: string[]
  let newContext: BrowserStack['newContext']
  let openSignedIn: BrowserStack['openSignedIn']
  const b = browserSuite({
    shots: 'triggers',
    stepTimeoutMs: STEP_TIMEOUT_MS,
    ready: (s) => {
      ;({ stack, context, page, pageErrors, cspViolations, newContext, openSignedIn } = s)
    },
  })

  /**
   * A run that did not succeed in time says why (issue 22, §8): each of the agent's runs with its
   * status, error and timeline (each step's attempts and errors), and, in case no run started at all,
   * what each of its triggers' recent deliveries became.
   */
  async function runsAsTheApiHasThem(agentId: string): Promise<string> {
    const get = async (path: string) =>
      (await fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${stack.apiKey}` } })).json()
    const { runs } = await get(`/v1/runs?agent_id=${agentId}`)
    const { subscriptions } = await get(`/v1/agents/${agentId}/subscriptions`)
    return JSON.stringify(
      {
        runs: await Promise.all(runs.map((r: { id: string }) => get(`/v1/runs/${r.id}`))),
        deliveries: await Promise.all(
          subscriptions.map(async (s: { id: string; status: string; health: unknown }) => ({
            subscription: s.id,
            status: s.status,
            health: s.health,
            events: (await get(`/v1/subscriptions/${s.id}/events`)).events,
          })),
        ),
      },
      null,
      1,
    )
  }
  const orSayWhy = (agentId: string) => async (err: Error) => {
    throw new Error(
      `${err.message}\nthe agent's runs, as the API has them: ${await runsAsTheApiHasThem(agentId)}`,
    )
  }
  const shot = b.shot

  const searchSelect = b.searchSelect

  /** Makes an agent in the editor with the given string inputs and one List Tickets step; answers its id. */
  async function newAgent(
    on: Page,
    name: string,
    inputs: string[],
    tool: { query: string; option: string | RegExp; condition?: string },
    types: Record<string, string> = {},
  ): Promise<string> {
    await on.goto('/agents/new')
    await on.locator('#agent-name').fill(name)
    for (const [i, input] of inputs.entries()) {
      await on.getByRole('button', { name: 'Add input variable' }).click()
      await on.locator(`#agent-inputs-${i}-name`).fill(input)
      if (types[input]) await on.locator(`#agent-inputs-${i}-type`).selectOption(types[input])
    }
    await on.getByRole('button', { name: 'Add step' }).click()
    await on.locator('#agent-steps-0-key').fill('look')
    await searchSelect('#agent-steps-0-tool', tool.query, tool.option, on)
    await on.locator('#agent-steps-0-integration').waitFor()
    if (tool.condition) await on.locator('#agent-steps-0-condition').fill(tool.condition)
    return createAgentFromEditor(on)
  }

  it(
    'Zendesk: an Enterprise user maps Ticket priority updated, activates it, and a priority change runs the agent',
    async () => {
      await connectZendesk(stack)
      await openSignedIn('/agents')
      const agentId = await newAgent(
        page,
        'Priority watcher',
        ['subject', 'description', 'requester', 'priority'],
        { query: 'list tickets', option: /^List Tickets/ },
        { requester: 'number' },
      )
      await page.getByRole('heading', { name: 'Priority watcher', level: 1 }).waitFor()
      await shot('zendesk-01-agent')

      await page.locator('nav.tabs').getByRole('link', { name: 'Triggers' }).click()
      await page.waitForURL((u) => u.pathname.endsWith('/triggers'))
      await page.getByRole('button', { name: 'Add trigger' }).click()
      await searchSelect('#subscription-trigger', 'priority', /^Ticket priority updated/i)
      await page.locator('#mapping-subject').waitFor()
      await shot('zendesk-02-trigger-chosen')
      expect(await page.getByRole('link', { name: 'Zendesk triggers' }).getAttribute('href')).toBe(
        '/docs/triggers/zendesk.md',
      )
      // Fields clicked in the event's tree, or typed.
      await page.locator('#mapping-subject').click()
      await page.getByRole('button', { name: 'Insert ticket.subject', exact: true }).click()
      expect(await page.locator('#mapping-subject').inputValue()).toBe('{{ ticket.subject }}')
      await page.locator('#mapping-description').click()
      // A field inserted, then another box chosen before the next frame: focus stays in the box chosen,
      // so what is typed next goes there. (Once, the inserting box took focus back and the requester's
      // template landed in the description.)
      const focusedAfterQuickMove = await page.evaluate(async () => {
        document.querySelector<HTMLButtonElement>('button[aria-label="Insert ticket.description"]')!.click()
        document.getElementById('mapping-requester')!.focus()
        await new Promise((frame) => requestAnimationFrame(() => requestAnimationFrame(frame)))
        return document.activeElement?.id
      })
      expect(focusedAfterQuickMove).toBe('mapping-requester')
      expect(await page.locator('#mapping-description').inputValue()).toBe('{{ ticket.description }}')
      await page.locator('#mapping-requester').fill('{{ ticket.requester.id }}')
      await page.locator('#mapping-priority').fill('{{ current }}')
      await shot('zendesk-03-mapping')
      await page.getByRole('button', { name: 'Save trigger' }).click()

      const sub = page.getByTestId('subscription').filter({ hasText: /Ticket priority updated/i })
      await sub.waitFor()
      await page.getByText(/Saved\. It starts no runs until you activate it/).waitFor()
      await page.getByTestId('mapping-preview').locator('.mapped-inputs').waitFor()
      await shot('zendesk-04-saved-preview')

      await page.getByTestId('test-panel').getByRole('button', { name: 'Test', exact: true }).click()
      const testResult = page.getByTestId('test-panel').locator('.test-result')
      await testResult.waitFor()
      expect(await testResult.innerText()).toMatch(/recent real event|sample event/)
      await shot('zendesk-05-tested')

      await sub.getByRole('button', { name: 'Activate' }).click()
      await sub.locator('.badge-run', { hasText: 'Active' }).waitFor()
      await shot('zendesk-06-active')

      // A person in Zendesk's agent UI raises a ticket's priority.
      const created = await actAs(stack as never, ZENDESK_AGENT, 'POST', '/api/v2/tickets.json', {
        ticket: {
          subject: 'Checkout page is down',
          comment: { body: 'Customers cannot pay since the last release.' },
          priority: 'normal',
        },
      })
      const ticketId = created.ticket.id as number
      await actAs(stack as never, ZENDESK_AGENT, 'PUT', `/api/v2/tickets/${ticketId}.json`, {
        ticket: { priority: 'urgent' },
      })

      await page.locator('nav.tabs').getByRole('link', { name: 'Runs' }).click()
      await page.waitForURL((u) => u.pathname.endsWith('/runs'))
      await page.getByTestId('run-row').first().waitFor({ timeout: RUN_WAIT_MS }).catch(orSayWhy(agentId))
      const row = page
        .getByTestId('run-row')
        .filter({ hasNot: page.locator('.tag', { hasText: 'test' }) })
        .and(page.locator('[data-run-status="succeeded"]'))
        .first()
      await row.waitFor({ timeout: RUN_WAIT_MS }).catch(orSayWhy(agentId))
      await shot('zendesk-07-runs')
      await row.locator('a.run-row-link').click()
      await page.waitForURL((u) => u.pathname.startsWith('/runs/'))
      await page.getByTestId('run-status').getByText('Succeeded').waitFor()
      // The trigger's title comes from the catalogue once the run is shown.
      await page.locator('.run-header', { hasText: /Ticket priority updated/i }).waitFor()
      const body = await page.locator('body').innerText()
      expect(body).toContain('Checkout page is down')
      expect(body).toMatch(/urgent/i)
      await shot('zendesk-08-run')
      expect(agentId).toBeTruthy()
      expect(pageErrors).toEqual([])
      expect(cspViolations).toEqual([])
    },
    JOURNEY_TIMEOUT_MS,
  )

  it(
    'Zendesk: a Pro user is told that Zendesk triggers need the Enterprise plan',
    async () => {
      const user = await stack.createUser('pro')
      await connectZendesk({ url: stack.url, apiKey: user.apiKey }, { email: ZENDESK_AGENT })
      const pro = await newContext()
      const on = await pro.newPage()
      await openSignedIn('/agents', user.apiKey, on)
      await newAgent(on, 'Pro priority watcher', ['priority'], {
        query: 'list tickets',
        option: /^List Tickets/,
      })
      await on.locator('nav.tabs').getByRole('link', { name: 'Triggers' }).click()
      await on.getByRole('button', { name: 'Add trigger' }).click()
      await searchSelect('#subscription-trigger', 'priority', /^Ticket priority updated/i, on)
      // The plan is said when the trigger is chosen, and no form is offered to fill in first.
      await on.locator('#subscription-trigger-help', { hasText: 'Needs the Enterprise plan.' }).waitFor()
      await on.getByTestId('plan-unavailable').waitFor()
      expect(await on.locator('#mapping-priority').count()).toBe(0)
      expect(await on.getByRole('button', { name: 'Save trigger' }).count()).toBe(0)
      await shot('zendesk-10-pro-chosen', on)
      expect(await on.getByTestId('subscription').count()).toBe(0)
      await pro.close()
      expect(pageErrors).toEqual([])
      expect(cspViolations).toEqual([])
    },
    JOURNEY_TIMEOUT_MS,
  )

  it(
    'Vercel: a person adds the webhook on the project settings page, pastes its secret, sends a sample, and a failed deployment runs the agent',
    async () => {
      await connectVercel(stack)
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url })
      await openSignedIn('/agents')
      const agentId = await newAgent(page, 'Failed deploy triage', ['url', 'state', 'deployment_id'], {
        query: 'list deployments',
        option: /^List Deployments/,
      })
      await page.locator('nav.tabs').getByRole('link', { name: 'Triggers' }).click()
      await page.waitForURL((u) => u.pathname.endsWith('/triggers'))
      await page.getByRole('button', { name: 'Add trigger' }).click()
      await searchSelect('#subscription-trigger', 'failed', /^Deployment failed/i)
      await page.locator('#mapping-url').waitFor()
      await page.locator('#mapping-url').fill('{{ deployment.url }}')
      await page.locator('#mapping-state').fill('{{ deployment.state }}')
      await page.locator('#mapping-deployment_id').click()
      await page.getByRole('button', { name: 'Insert deployment.id', exact: true }).click()
      expect(await page.locator('#mapping-deployment_id').inputValue()).toBe('{{ deployment.id }}')
      await shot('vercel-01-mapping')
      await page.getByRole('button', { name: 'Save trigger' }).click()
      const sub = page.getByTestId('subscription').filter({ hasText: /Deployment failed/i })
      await sub.waitFor()
      const address = page.getByTestId('webhook-address')
      await address.waitFor()
      // The event's name comes with the trigger's catalogue entry, which may arrive after the panel.
      await page.locator('.webhook-setup', { hasText: 'deployment.error' }).waitFor()
      await shot('vercel-02-webhook-setup')

      // Copy the address with the Copy button, as a person would.
      await page.locator('.webhook-setup').getByRole('button', { name: /Copy/ }).first().click()
      const copied = await page.evaluate(() => navigator.clipboard.readText())
      expect(copied).toBe(await address.innerText())

      // The Vercel project's settings page in a second tab, reached from the set-up's link to the
      // sandbox (no project chosen: its home page, which links each project's): sign in, paste, tick, create.
      const sandboxLink = page.getByTestId('sandbox-webhook-page')
      expect(await sandboxLink.getAttribute('href')).toBe(`${stack.sandboxUrl}/vercel`)
      const [vercelTab] = await Promise.all([context.waitForEvent('page'), sandboxLink.click()])
      await vercelTab.locator('tr', { hasText: 'ada-blog' }).getByRole('link', { name: 'Webhooks' }).click()
      await vercelTab.waitForURL((u) => u.pathname.endsWith('/vercel/projects/ada-blog/settings/webhooks'))
      await vercelTab.locator('input[name="email"]').fill(VERCEL.user.email)
      await vercelTab.locator('input[name="password"]').fill(VERCEL.password)
      await vercelTab.getByRole('button', { name: 'Continue' }).click()
      await vercelTab.locator('input[name="url"]').waitFor()
      await vercelTab.locator('input[name="url"]').fill(copied)
      await vercelTab.locator('input[name="events"][value="deployment.error"]').check()
      await shot('vercel-03-vercel-settings', vercelTab)
      await vercelTab.getByRole('button', { name: 'Create Webhook' }).click()
      const shownSecret = await vercelTab.locator('#webhook-secret').innerText()
      expect(shownSecret).toBeTruthy()
      await shot('vercel-04-vercel-secret-shown', vercelTab)

      // Back in Switchyard: paste the secret, save, activate.
      await page.bringToFront()
      await page.getByLabel('The signing secret Vercel shows for it').fill(shownSecret)
      await page.getByRole('button', { name: 'Save secret' }).click()
      await page.getByText(/A secret is saved/).waitFor()
      expect(await page.locator('body').innerText()).not.toContain(shownSecret)
      await sub.getByRole('button', { name: 'Activate' }).click()
      await sub.locator('.badge-run', { hasText: 'Active' }).waitFor()
      await shot('vercel-05-active')

      // Send sample event, before any deployment: a run with the mapped inputs.
      await page.getByRole('button', { name: 'Send sample event' }).click()
      const sample = page.getByTestId('sample-result')
      await sample.waitFor()
      expect(await sample.innerText()).toMatch(/answered 200; a run started/)
      expect(await sample.innerText()).toMatch(/"state":"ERROR"/)
      await shot('vercel-06-sample-sent')

      // A deployment is created on Vercel and its build fails.
      const control = vercelControl(stack)
      const adaToken = (await control.call('POST', '/tokens', { user: 'ada' })).body.token as string
      const created = await fetch(`${stack.sandboxUrl}/vercel/v13/deployments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adaToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'ada-blog', target: 'production' }),
      })
      const deployment = (await created.json()) as { id: string }
      const finished = await control.call('POST', `/deployments/${deployment.id}/finish`, { state: 'ERROR' })
      expect(finished.status, JSON.stringify(finished.body)).toBe(200)

      await page.locator('nav.tabs').getByRole('link', { name: 'Runs' }).click()
      await page.waitForURL((u) => u.pathname.endsWith('/runs'))
      await expect
        .poll(() => page.getByTestId('run-row').count(), { timeout: RUN_WAIT_MS })
        .toBe(2)
        .catch(orSayWhy(agentId))
      await shot('vercel-07-runs')
      await page.getByTestId('run-row').first().locator('a.run-row-link').click()
      await page.waitForURL((u) => u.pathname.startsWith('/runs/'))
      await page.getByTestId('run-status').waitFor()
      expect(await page.locator('body').innerText()).toContain(deployment.id)
      await page.locator('.run-header', { hasText: /Deployment failed/i }).waitFor()
      await shot('vercel-08-run')
      expect(pageErrors).toEqual([])
      expect(cspViolations).toEqual([])
    },
    JOURNEY_TIMEOUT_MS,
  )
})
