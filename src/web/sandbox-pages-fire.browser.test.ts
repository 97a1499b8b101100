// A newcomer makes each platform's trigger fire with only the sandbox pages and the web app (issue 24
// §2, docs/sandbox.md "Home pages"), in Debian's Chromium: a customer opens a ticket on the Zendesk
// sandbox's home page; on Vercel's, the person adds the webhook the trigger's set-up names (docs/
// triggers/vercel.md "Setting it up") and deploys a project whose build fails. Each trigger starts a
// run that the web app's Runs page lists (Trello's: sandbox-pages.browser.test.ts). A refused deploy
// says why in words, with the way back. Screenshots at 1,280 px and 390 px go to /work/tmp/shots/.
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { browserSuite, hasChromium, warnIfNoChromium } from '../../test/helpers/browser.ts'
import { connectZendesk } from '../../test/helpers/connect.ts'
import { client } from '../../test/helpers/stack.ts'
import { runsOf, waitFor } from '../../test/helpers/trello-engine.ts'
import { connectVercel, VERCEL } from '../../test/helpers/vercel.ts'

const JOURNEY_TIMEOUT_MS = 240_000
/** How long a deploy may take from the form to a run: the build's 10 s, the delivery, the queue. */
const VERCEL_RUN_WAIT_MS = 90_000

warnIfNoChromium('the sandbox pages trigger browser test')

describe.skipIf(!hasChromium)('triggers fired from the sandbox pages, in Chromium', () => {
  let page: Page
  const b = browserSuite({
    shots: 'sandbox-fire',
    stepTimeoutMs: 30_000,
    ready: (s) => {
      page = s.page
    },
  })

  const shots = (name: string) => b.shotsAt(name)

  /** An agent of one step, `tool` with `input`, and its subscription to `trigger`, made active unless told. */
  async function subscribed(options: {
    name: string
    integration: string
    tool: string
    input: Record<string, unknown>
    inputs: Array<{ name: string; type: string; required?: boolean }>
    trigger: string
    mapping: Record<string, string>
    extra?: Record<string, unknown>
    /** False: left for the person to switch on in the web app. */
    activate?: boolean
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
    if (sub.body.status !== 'active' && options.activate !== false) {
      const activated = await api.post(`/v1/subscriptions/${sub.body.id}/activate`, {})
      expect(activated.status, activated.text).toBe(200)
      active = activated.body
    }
    return { agentId: agent.body.id as string, sub: active as { id: string; webhook_address?: string } }
  }

  /** Waits for the subscription's first run, then finds it on the web app's Runs page by its agent's name. */
  async function runShownInWebApp(subscriptionId: string, agentName: string, timeoutMs?: number) {
    const runs = await waitFor(
      'a run of the trigger',
      async () => {
        const found = await runsOf(b.stack, subscriptionId)
        return found.length > 0 ? found : undefined
      },
      timeoutMs,
    )
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

  it(
    'a person adds the webhook on the Vercel sandbox, deploys a project whose build fails there, and Deployment Failed starts a run the web app lists',
    async () => {
      const integration = (await connectVercel(b.stack)).integrationId!
      const name = 'Failed deploy reader from the sandbox page'
      const { agentId, sub } = await subscribed({
        name,
        integration,
        tool: 'vercel.get_deployment',
        input: { id: '{{ inputs.deployment_id }}' },
        inputs: [{ name: 'deployment_id', type: 'string', required: true }],
        trigger: 'vercel.deployment_failed',
        mapping: { deployment_id: '{{ deployment.id }}' },
        activate: false,
      })

      // The trigger's set-up in the web app names the address and the event, and links the sandbox.
      await b.openSignedIn(`/agents/${encodeURIComponent(agentId)}/triggers`)
      const address = await page.getByTestId('webhook-address').innerText()
      expect(address).toBe(sub.webhook_address)
      // The event's name and the sandbox's link come with the trigger's catalogue entry, which may
      // arrive after the panel: wait for them rather than read the panel once (seen in CI under load).
      await page.locator('.webhook-setup', { hasText: 'deployment.error' }).waitFor()
      await page.getByTestId('sandbox-webhook-page').waitFor()
      const [vercel] = await Promise.all([
        b.context.waitForEvent('page'),
        page.getByTestId('sandbox-webhook-page').click(),
      ])
      await vercel.getByRole('heading', { name: 'Vercel sandbox', level: 1 }).waitFor()

      // On the sandbox: the project's Webhooks page, signed in as Ada, the address and the event.
      await vercel
        .locator('#projects tr', { hasText: 'ada-blog' })
        .getByRole('link', { name: 'Webhooks' })
        .click()
      await vercel.locator('input[name="email"]').fill(VERCEL.user.email)
      await vercel.locator('input[name="password"]').fill(VERCEL.password)
      await vercel.getByRole('button', { name: 'Continue' }).click()
      await vercel.locator('input[name="url"]').fill(address)
      await vercel.locator('input[name="events"][value="deployment.error"]').check()
      await vercel.getByRole('button', { name: 'Create Webhook' }).click()
      const secret = await vercel.locator('#webhook-secret').innerText()
      expect(secret).toBeTruthy()

      // Back in the web app: the secret pasted, the trigger switched on.
      await page.bringToFront()
      await page.getByLabel('The signing secret Vercel shows for it').fill(secret)
      await page.getByRole('button', { name: 'Save secret' }).click()
      await page.getByText(/A secret is saved/).waitFor()
      const row = page.getByTestId('subscription').filter({ hasText: /Deployment failed/i })
      await row.getByRole('button', { name: 'Activate', exact: true }).click()
      await row.locator('.badge-run[data-status="active"]').waitFor()

      // The Vercel sandbox's home page: Ada deploys ada-blog, and its build fails.
      await vercel.bringToFront()
      await vercel.goto(`${b.stack.sandboxUrl}/vercel`)
      const deploy = vercel.locator('#form-deploy')
      await deploy
        .getByLabel('Acting as')
        .selectOption({ label: `${VERCEL.user.name} (${VERCEL.user.username})` })
      await deploy.getByLabel('Project').selectOption({ label: `${VERCEL.user.username} / ada-blog` })
      await deploy.getByLabel('Outcome').selectOption('error')
      await deploy.getByRole('button', { name: 'Deploy' }).click()
      const done = await vercel.locator('#done').innerText()
      const deploymentId = /as (dpl_\w+)/.exec(done)?.[1]
      expect(deploymentId, done).toBeDefined()
      await b.shotsAt('vercel-deployed', undefined, vercel)

      // The build fails 10 s after the deploy, on the sandbox's clock; then the webhook is delivered.
      const run = await runShownInWebApp(sub.id, name, VERCEL_RUN_WAIT_MS).catch(async (err: Error) => {
        // What the trigger and Vercel's deliveries became say where it stopped.
        const api = client(b.stack, b.stack.apiKey)
        const subs = (await api.get(`/v1/agents/${agentId}/subscriptions`)).text
        const deliveries = await fetch(`${b.stack.sandboxUrl}/vercel/_control/deliveries`)
        throw new Error(
          `${err.message}\nsubscriptions: ${subs}\nVercel deliveries: ${await deliveries.text()}`,
        )
      })
      const detail = (await client(b.stack, b.stack.apiKey).get(`/v1/runs/${run.id}`)).body
      expect(detail.started_by).toBe('trigger')
      expect(detail.inputs).toEqual({ deployment_id: deploymentId })
      await shots('vercel-run-in-web-app')
      await vercel.close()
    },
    JOURNEY_TIMEOUT_MS,
  )

  it(
    'a deploy the Vercel sandbox refuses says why in words on a page that leads back to the form',
    async () => {
      await page.goto(`${b.stack.sandboxUrl}/vercel`)
      const deploy = page.locator('#form-deploy')
      // Grace may not deploy Ada's own project.
      await deploy
        .getByLabel('Acting as')
        .selectOption({ label: `${VERCEL.member.name} (${VERCEL.member.username})` })
      await deploy.getByLabel('Project').selectOption({ label: `${VERCEL.user.username} / ada-blog` })
      await deploy.getByRole('button', { name: 'Deploy' }).click()
      await page.getByRole('heading', { name: 'Nothing was changed', level: 1 }).waitFor()
      const reason = await page.getByRole('alert').innerText()
      expect(reason).toBe(
        `${VERCEL.member.name} cannot deploy ada-blog: it is ${VERCEL.user.name}'s own project. Choose ${VERCEL.user.name} as the person acting, or a team's project.`,
      )
      expect(reason).not.toMatch(/[{}"]/)
      await b.expectNoSideways(page, 'the refusal page')
      await shots('vercel-refused')
      await page.getByRole('link', { name: 'Back to the Vercel sandbox' }).click()
      await page.getByRole('heading', { name: 'Vercel sandbox', level: 1 }).waitFor()
      expect(new URL(page.url()).pathname).toBe('/vercel')
    },
    JOURNEY_TIMEOUT_MS,
  )

  it('no page error or blocked content on the way', () => {
    expect(b.pageErrors).toEqual([])
  })
})
