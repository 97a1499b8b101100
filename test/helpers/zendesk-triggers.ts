import { createHmac, randomUUID } from 'node:crypto'
import { expect } from 'vitest'
import type { TestStack } from './test-stack.ts'
import { client, zendeskControl } from './stack.ts'

/** Helpers for Zendesk's triggers over the engine: the sandbox as a person, its deliveries, signed deliveries of our own. */

export const ZENDESK_ADMIN = 'admin@acme.test'
export const ZENDESK_AGENT = 'agent@acme.test'

/** Acts on the sandbox as a person in Zendesk's agent UI (`POST /_control/accounts/acme/act`); answers the API's body. */
export async function actAs(
  stack: TestStack,
  email: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<any> {
  const answer = await zendeskControl(stack).call('POST', '/accounts/acme/act', { email, method, path, body })
  if (answer.status !== 200 || answer.body.status >= 300)
    throw new Error(`act ${method} ${path}: ${JSON.stringify(answer.body)}`)
  return answer.body.body
}

/** Waits until the sandbox has sent every delivery; the intake has committed each by the time it answered. */
export async function settled(stack: TestStack): Promise<any[]> {
  const answer = await zendeskControl(stack).call('GET', '/deliveries?settled=1&timeout_ms=20000')
  expect(answer.body.settled).toBe(true)
  return answer.body.deliveries
}

/** The Zendesk admin's own view of the account's webhooks, through the sandbox's API. */
export async function remoteWebhooks(
  stack: TestStack,
): Promise<
  Array<{ id: string; endpoint: string; subscriptions: string[]; custom_headers: Record<string, string> }>
> {
  const token = await zendeskControl(stack).mintToken(ZENDESK_ADMIN)
  const res = await fetch(`${stack.sandboxUrl}/zendesk/acme/api/v2/webhooks`, {
    headers: { authorization: `Bearer ${token}` },
  })
  return (await res.json()).webhooks
}

export async function signingSecret(stack: TestStack, webhookId: string): Promise<string> {
  const token = await zendeskControl(stack).mintToken(ZENDESK_ADMIN)
  const res = await fetch(`${stack.sandboxUrl}/zendesk/acme/api/v2/webhooks/${webhookId}/signing_secret`, {
    headers: { authorization: `Bearer ${token}` },
  })
  return (await res.json()).signing_secret.secret
}

export const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
export const sign = (secret: string, timestamp: string, body: string) =>
  createHmac('sha256', secret)
    .update(timestamp + body)
    .digest('base64')

/** A ticket event as the sandbox sends it, with a fresh id: `from` is a delivered body to copy. */
export function freshEvent(from: string, change: Record<string, unknown> = {}): string {
  return JSON.stringify({ ...JSON.parse(from), id: randomUUID(), ...change })
}

/** POSTs a body to the intake with Zendesk's headers, signed as given. */
export async function post(
  endpoint: string,
  body: string,
  headers: Record<string, string | undefined>,
): Promise<{ status: number; body: any }> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: Object.fromEntries(
      Object.entries({
        'content-type': 'application/json',
        'x-switchyard-account': 'acme',
        ...headers,
      }).filter(([, v]) => v !== undefined),
    ) as Record<string, string>,
    body,
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : undefined }
}

/** How many runs an agent has. */
export async function runCount(stack: TestStack, agentId: string): Promise<number> {
  const res = await client(stack, stack.apiKey).get(`/v1/runs?agent_id=${agentId}&limit=100`)
  return res.body.runs.length
}
