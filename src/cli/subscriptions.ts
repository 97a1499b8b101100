import type { parseArgs as ParseArgs } from 'node:util'
import {
  answer,
  ask,
  jsonOption,
  moreLine,
  PAGE_OPTIONS,
  pageQuery,
  resolveAgent,
  table,
  when,
} from './output.ts'

export const SUBSCRIPTIONS_USAGE = `  subscriptions list [--agent <id|name>] [--search <words>] [--limit N] [--cursor <c>] [--json]
                                          the triggers attached to your agents, a page at a time
  subscriptions create --agent <id|name> --trigger <id> --integration <id|account name>
            [--config <json>] [--mapping <json>] [--start-on-own-changes] [--json]
                                          attach a trigger to an agent (inactive until activated);
                                          --mapping maps event fields to inputs: '{"subject": "{{ card.name }}"}'
  subscriptions activate <id> [--json]    start receiving events (creates the platform's webhook if needed)
  subscriptions deactivate <id> [--json]
  subscriptions test <id> [--start-run] [--json]
                                          map a recent event (else the sample); --start-run starts a test run
  subscriptions secret <id> --secret <value> [--json]
                                          save the signing secret a platform showed for a webhook you set up (Vercel)
  subscriptions send-sample <id> [--json] sign the trigger's sample with that secret and send it through the intake
  subscriptions health <id> [--json]      why a trigger does or does not fire
  subscriptions events <id> [--json]      its recent deliveries and polls, each with its outcome and why
  subscriptions webhook-events <webhook id> [--json]
                                          a webhook's recent deliveries, per subscription on it (ids in health)
  subscriptions poll <id> [--json]        poll a polled trigger now
  subscriptions delete <id> [--json]
  subscriptions resume --integration <integration id> [--json]
                                          after reconnecting an account, activate again the triggers
                                          its disconnection paused
  subscriptions resume --plan [--json]    after a plan upgrade, activate again the triggers the
                                          lowered plan paused
`

interface Subscription {
  id: string
  agent_id: string
  agent_name: string | null
  trigger_id: string
  trigger_title: string
  platform: string
  mode: string
  integration_id: string
  integration_name: string | null
  status: string
  paused_reason: string | null
  health: { verdict: string; reasons: Array<{ code: string; message: string }> }
  webhook_address: string | null
  webhook_secret_set: boolean | null
  last_event_at: string | null
  last_error: string | null
  last_error_at: string | null
}
interface Health {
  status: string
  verdict: string
  reasons: Array<{ code: string; severity: string; message: string }>
  integration: { id: string; name: string | null; status: string; connected: boolean }
  webhooks: Array<{
    id?: string
    model_key: string
    remote_id: string | null
    managed: boolean
    status: string
    present: boolean | null
    last_error: string | null
    address?: string
    secret_set?: boolean
  }>
  polled: boolean
  next_poll_at: string | null
  last_event_at: string | null
  last_error: string | null
  last_error_at: string | null
  deliveries?: {
    recent: number
    refused: { count: number; last_at: string; reason: string } | null
    skipped: { count: number; last_at: string; reason: string } | null
    last_poll_at: string | null
  }
}
interface DeliveryLine {
  received_at: string
  outcome: string
  reason: string | null
  event_type: string | null
  event_id: string | null
  run_id?: string | null
  subscriptions?: Array<{ subscription_id: string; outcome: string; reason?: string }>
}
interface TestAnswer {
  source: string
  event: unknown
  inputs: unknown
  errors: Array<{ field: string; message: string }>
  run: { id: string; status: string } | null
}

/** `switchyard subscriptions …`: an agent's triggers tab, through the running service's REST API. */
export async function subscriptions(
  sub: string | undefined,
  args: string[],
  parseArgs: typeof ParseArgs,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      agent: { type: 'string' },
      trigger: { type: 'string' },
      integration: { type: 'string' },
      config: { type: 'string' },
      mapping: { type: 'string' },
      'start-on-own-changes': { type: 'boolean' },
      'start-run': { type: 'boolean' },
      secret: { type: 'string' },
      plan: { type: 'boolean' },
      ...PAGE_OPTIONS,
    },
  })
  const json = values.json ?? false
  const [id] = positionals
  const needId = () => {
    if (!id) throw new Error(`usage: switchyard subscriptions ${sub} <subscription id>`)
    return encodeURIComponent(id)
  }
  switch (sub) {
    case 'list':
      return answer(json, async () => {
        const agentId = values.agent ? (await resolveAgent(values.agent)).id : undefined
        const query = pageQuery(values)
        if (agentId) query.set('agent_id', agentId)
        const page = await ask<{
          subscriptions: Subscription[]
          next_cursor: string | null
          plan_resumable?: string[]
        }>('GET', `/v1/subscriptions${query.size ? `?${query}` : ''}`)
        const planResumable = page.plan_resumable ?? []
        const list = page.subscriptions
        const lines =
          list.length === 0
            ? ['no subscriptions']
            : table(
                ['STATUS', 'HEALTH', 'TRIGGER', 'AGENT', 'INTEGRATION', 'LAST EVENT', 'ID'],
                list.map((s) => [
                  s.paused_reason ? `${s.status} (${s.paused_reason})` : s.status,
                  s.health.verdict,
                  s.trigger_title,
                  s.agent_name ?? s.agent_id,
                  s.integration_name ?? s.integration_id,
                  when(s.last_event_at),
                  s.id,
                ]),
              )
        // The verdict's first reason says what to do; the health command lists them all.
        for (const s of list.filter((x) => x.health.verdict !== 'healthy' && x.status === 'active'))
          lines.push(`${s.id}: ${s.health.verdict}: ${s.health.reasons[0]?.message ?? ''}`)
        const paused = new Map<string, string>()
        for (const s of list.filter((x) => x.paused_reason === 'integration_disconnected'))
          paused.set(s.integration_id, s.integration_name ?? s.integration_id)
        for (const [integrationId, name] of paused)
          lines.push(
            `Triggers paused when ${name} was disconnected: reconnect it, then switchyard subscriptions resume --integration ${integrationId}`,
          )
        if (planResumable.length)
          lines.push(
            `${planResumable.length} trigger(s) paused by a lowered plan are included in the plan again: switchyard subscriptions resume --plan`,
          )
        lines.push(...moreLine(page.next_cursor))
        return { value: page, lines }
      })
    case 'create': {
      if (!values.agent) throw new Error('--agent is required (an agent id or name)')
      if (!values.trigger)
        throw new Error('--trigger is required (a trigger id; switchyard triggers list shows them)')
      if (!values.integration)
        throw new Error('--integration is required (an integration id or account name)')
      const config = jsonOption(values.config, '--config', '{"board_ids": ["5f…"]}') ?? {}
      const mapping = jsonOption(values.mapping, '--mapping', '{"subject": "{{ card.name }}"}') ?? {}
      return answer(json, async () => {
        const agent = await resolveAgent(values.agent!)
        const created = await ask<Subscription>(
          'POST',
          `/v1/agents/${encodeURIComponent(agent.id)}/subscriptions`,
          {
            trigger: values.trigger,
            integration: values.integration,
            config,
            mapping,
            ...(values['start-on-own-changes'] ? { start_on_own_changes: true } : {}),
          },
        )
        const lines = [
          `Created subscription ${created.id}: ${created.trigger_title} on ${created.integration_name ?? created.integration_id} starts ${agent.name}; ${created.status}`,
        ]
        if (created.webhook_address)
          lines.push(`Point ${created.platform}'s webhook at ${created.webhook_address}`)
        lines.push(`Activate it with: switchyard subscriptions activate ${created.id}`)
        return { value: created, lines }
      })
    }
    case 'activate':
    case 'deactivate':
      return answer(json, async () => {
        const s = await ask<Subscription>('POST', `/v1/subscriptions/${needId()}/${sub}`)
        return { value: s, lines: [`${s.trigger_title} (${s.id}) is ${s.status}`] }
      })
    case 'test':
      return answer(json, async () => {
        const result = await ask<TestAnswer>('POST', `/v1/subscriptions/${needId()}/test`, {
          start_run: values['start-run'] ?? false,
        })
        const lines = [
          `Event: ${result.source === 'recent' ? 'the most recent real one' : "the trigger's sample (no recent event found)"}`,
          `Inputs: ${JSON.stringify(result.inputs)}`,
          ...(result.errors.length
            ? ['Mapping problems:', ...result.errors.map((e) => `  ${e.field}: ${e.message}`)]
            : []),
          ...(result.run
            ? [
                `Started test run ${result.run.id} (${result.run.status}); follow it with switchyard runs get ${result.run.id}`,
              ]
            : []),
        ]
        return { value: result, lines, code: result.errors.length ? 1 : 0 }
      })
    case 'secret':
      return answer(json, async () => {
        const secret = values.secret
        if (typeof secret !== 'string' || !secret.trim())
          throw new Error('give the secret the platform showed: --secret <value>')
        const saved = await ask<Subscription>('PATCH', `/v1/subscriptions/${needId()}`, {
          webhook_secret: secret.trim(),
        })
        return {
          value: saved,
          lines: [
            `Saved the signing secret of subscription ${saved.id}: deliveries to ${saved.webhook_address ?? 'its address'} are checked with it`,
          ],
        }
      })
    case 'send-sample':
      return answer(json, async () => {
        const sent = await ask<{
          status: number
          message: string
          runs: Array<{
            id: string
            status: string
            inputs: Record<string, unknown>
            error: { message: string } | null
          }>
        }>('POST', `/v1/subscriptions/${needId()}/send-sample`, {})
        return {
          value: sent,
          lines: [
            sent.message,
            `The webhook address answered ${sent.status}; ${sent.runs.length === 0 ? 'no run started' : `${sent.runs.length} run(s) started:`}`,
            ...sent.runs.map(
              (r) =>
                `  ${r.id}  ${r.status}  inputs ${JSON.stringify(r.inputs)}${r.error ? `  (${r.error.message})` : ''}`,
            ),
          ],
        }
      })
    case 'health':
      return answer(json, async () => {
        const h = await ask<Health>('GET', `/v1/subscriptions/${needId()}/health`)
        return { value: h, lines: describeHealth(h) }
      })
    case 'events':
    case 'webhook-events':
      return answer(json, async () => {
        const path =
          sub === 'events' ? `/v1/subscriptions/${needId()}/events` : `/v1/webhooks/${needId()}/events`
        const { events } = await ask<{ events: DeliveryLine[] }>('GET', path)
        const lines = events.length
          ? events.flatMap((e) => [
              `${when(e.received_at)}  ${e.outcome}${e.event_type ? `  ${e.event_type}` : ''}${e.event_id ? ` ${e.event_id}` : ''}${e.run_id ? `  run ${e.run_id}` : ''}${e.reason ? `: ${e.reason}` : ''}`,
              ...(e.subscriptions ?? []).map(
                (o) => `    ${o.subscription_id}: ${o.outcome}${o.reason ? `: ${o.reason}` : ''}`,
              ),
            ])
          : ['Nothing has arrived yet']
        return { value: { events }, lines }
      })
    case 'poll':
      return answer(json, async () => {
        const s = await ask<Subscription>('POST', `/v1/subscriptions/${needId()}/poll`)
        return {
          value: s,
          lines: [
            `${s.trigger_title} (${s.id}) is polled within a second; see switchyard subscriptions events ${s.id}`,
          ],
        }
      })
    case 'delete':
      return answer(json, async () => {
        const key = needId()
        const done = await ask<{ manual_cleanup?: Array<{ message: string }> } | undefined>(
          'DELETE',
          `/v1/subscriptions/${key}`,
        )
        const cleanup = done?.manual_cleanup ?? []
        return {
          value: { id, deleted: true, manual_cleanup: cleanup },
          lines: [`Deleted subscription ${id}`, ...cleanup.map((c) => `To do: ${c.message}`)],
        }
      })
    case 'resume':
      return answer(json, async () => {
        if (!values.integration && !values.plan)
          throw new Error(
            '--integration <id> (the integration you reconnected) or --plan (after a plan upgrade) is required',
          )
        const outcome = await ask<{
          resumed: string[]
          failed: Array<{ id: string; message: string }>
        }>(
          'POST',
          values.plan
            ? '/v1/subscriptions/resume'
            : `/v1/integrations/${encodeURIComponent(values.integration!)}/resume`,
        )
        const lines = [
          outcome.resumed.length
            ? `Resumed ${outcome.resumed.length} trigger(s): ${outcome.resumed.join(', ')}`
            : 'No paused trigger to resume',
          ...outcome.failed.map((f) => `Still paused ${f.id}: ${f.message}`),
        ]
        return { value: outcome, lines }
      })
    default:
      throw new Error(
        'usage: switchyard subscriptions list|create|activate|deactivate|test|secret|send-sample|health|events|webhook-events|poll|delete|resume …',
      )
  }
}

function describeHealth(h: Health): string[] {
  const i = h.integration
  const lines = [
    `Verdict:     ${h.verdict}`,
    ...h.reasons.map((r) => `  - ${r.message}`),
    `Status:      ${h.status}`,
    `Integration: ${i.name ?? i.id}, ${i.connected ? 'connected' : `NOT connected (${i.status})`}`,
    `Last event:  ${when(h.last_event_at)}`,
  ]
  if (h.polled) {
    lines.push(`Last poll:   ${when(h.deliveries?.last_poll_at ?? null)}`)
    lines.push(`Next poll:   ${when(h.next_poll_at)}`)
  }
  const refused = h.deliveries?.refused
  if (refused)
    lines.push(
      `Refused:     ${refused.count} of the last ${h.deliveries!.recent} deliveries, the last ${when(refused.last_at)}: ${refused.reason}`,
    )
  const skipped = h.deliveries?.skipped
  if (skipped)
    lines.push(`Skipped:     ${skipped.count}, the last ${when(skipped.last_at)}: ${skipped.reason}`)
  if (h.last_error) lines.push(`Last error:  ${when(h.last_error_at)}: ${h.last_error}`)
  for (const w of h.webhooks) {
    const presence =
      w.present === null ? '' : w.present ? ', present at the platform' : ', MISSING at the platform'
    lines.push(
      `Webhook ${w.managed ? `for ${w.model_key}` : 'address'}: ${w.status}${presence}${w.remote_id ? ` (remote id ${w.remote_id})` : ''}` +
        `${w.address ? ` ${w.address}${w.secret_set === false ? ' (no secret set)' : ''}` : ''}${w.id ? ` [events: switchyard subscriptions webhook-events ${w.id}]` : ''}${w.last_error ? `; error: ${w.last_error}` : ''}`,
    )
  }
  if (!h.polled && h.webhooks.length === 0 && h.status === 'active') lines.push('Webhook: none')
  return lines
}
