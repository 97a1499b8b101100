// Pure helpers of an agent's Triggers tab: the configuration form's values for a stored config,
// where mapping errors belong, and the health panel's one-line answer to "why does it not fire".
import type { FieldError } from './api.ts'
import type { Subscription, SubscriptionHealth } from './agents-api.ts'
import type { FormField, FormValues } from './schema-form.ts'
import { timeAgo } from './run-format.ts'

/** The form's values for a stored object (the inverse of schema-form's coerceValues). */
export function formValuesOf(fields: readonly FormField[], stored: Record<string, unknown>): FormValues {
  const values: FormValues = {}
  for (const f of fields) {
    const v = stored[f.name]
    if (f.kind === 'boolean') {
      values[f.name] = v === true
      continue
    }
    if (v === undefined || v === null) {
      values[f.name] = ''
      continue
    }
    switch (f.kind) {
      case 'enum':
        values[f.name] = JSON.stringify(v)
        break
      case 'string-list':
        values[f.name] = Array.isArray(v) ? v.map(String).join(', ') : String(v)
        break
      case 'json':
        values[f.name] = JSON.stringify(v, null, 2)
        break
      default:
        values[f.name] = typeof v === 'string' ? v : JSON.stringify(v)
    }
  }
  return values
}

/**
 * Sorts mapping errors (from a preview, a test or a save) onto the agent's input variables: the field
 * may be `mapping.subject`, `inputs.subject`, `inputs[0]`-style or the bare name.
 */
export function routeMappingErrors(
  errors: readonly FieldError[] | undefined,
  variables: readonly string[],
): { byVariable: Record<string, string[]>; other: FieldError[] } {
  const byVariable: Record<string, string[]> = {}
  const other: FieldError[] = []
  const known = new Set(variables)
  for (const e of errors ?? []) {
    const rest = e.field.replace(/^(mapping|inputs)(\.|\[|$)/, '').replace(/^["']|["']?\]/g, '')
    const name = rest.split(/[.[]/, 1)[0]
    if (name && known.has(name)) (byVariable[name] ??= []).push(e.message)
    else other.push(e)
  }
  return { byVariable, other }
}

export interface Verdict {
  tone: 'ok' | 'warning' | 'error'
  text: string
}

/** The answer to "why does my trigger not fire?", from the subscription and its health. */
export function healthVerdict(
  sub: Pick<Subscription, 'status' | 'last_event_at' | 'webhook_address'> &
    Partial<Pick<Subscription, 'start_on_own_changes'>>,
  health: SubscriptionHealth,
  platformTitle: string,
  now = Date.now(),
): Verdict {
  if (!health.integration.connected) {
    return {
      tone: 'error',
      text: `The ${platformTitle} integration “${health.integration.name}” is not connected, so no event can reach this trigger. Reconnect it on the Integrations page.`,
    }
  }
  if (sub.status !== 'active')
    return {
      tone: 'warning',
      text: 'This trigger is inactive: it starts no runs. Activate it when the mapping looks right.',
    }
  const missing = health.webhooks.filter((w) => w.present === false)
  if (missing.length > 0) {
    return {
      tone: 'error',
      text: `The webhook at ${platformTitle} is gone, so ${platformTitle} sends no events. Deactivate and activate the trigger to create it again.`,
    }
  }
  const failing = health.webhooks.find((w) => w.last_error)
  if (failing)
    return { tone: 'error', text: `Setting up the webhook at ${platformTitle} failed: ${failing.last_error}` }
  const lastEvent = health.last_event_at ?? sub.last_event_at
  if (
    health.last_error &&
    (!lastEvent || (health.last_error_at && Date.parse(health.last_error_at) >= Date.parse(lastEvent)))
  ) {
    return { tone: 'error', text: `The last event did not start a run: ${health.last_error}` }
  }
  // Refusals and skips speak louder than silence (issue 22, §5): "no event yet" was shown while
  // every delivery was refused for a wrong secret.
  const refused = health.deliveries?.refused
  if (refused && (!lastEvent || Date.parse(refused.last_at) >= Date.parse(lastEvent))) {
    const n = refused.count === 1 ? 'One delivery' : `${refused.count} deliveries`
    return {
      tone: 'error',
      text: `${n} from ${platformTitle} ${refused.count === 1 ? 'was' : 'were'} refused, the last ${timeAgo(refused.last_at, now)}: ${refused.reason}.`,
    }
  }
  const skipped = health.deliveries?.skipped
  if (
    skipped &&
    !sub.start_on_own_changes &&
    (!lastEvent || Date.parse(skipped.last_at) >= Date.parse(lastEvent))
  ) {
    const n = skipped.count === 1 ? 'One event' : `${skipped.count} events`
    return {
      tone: 'warning',
      text: `${n} started nothing, the last ${timeAgo(skipped.last_at, now)}: made by ${health.integration.name} itself, the integration's own account, so the loop guard skipped ${skipped.count === 1 ? 'it' : 'them'}. To start on such changes, tick “Also start on changes made by this integration’s own account” in the trigger’s settings (${skipped.option}).`,
    }
  }
  if (!lastEvent && sub.webhook_address) {
    return {
      tone: 'warning',
      text: `No event has arrived yet. Check that ${platformTitle} has a webhook sending to the address shown here, for the events this trigger watches.`,
    }
  }
  if (!lastEvent) {
    return {
      tone: 'ok',
      text: health.polled
        ? `Active. Switchyard asks ${platformTitle} for new events regularly; none has come yet. Make a change that matches the configuration to see a run.`
        : `Active and listening. No event has arrived yet: make a change on ${platformTitle} that matches the configuration${sub.start_on_own_changes ? '' : `, as someone other than ${health.integration.name} (changes made by the integration's own account start nothing)`}.`,
    }
  }
  return { tone: 'ok', text: `Working: the last event arrived ${timeAgo(lastEvent, now)}.` }
}
