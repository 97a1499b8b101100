import { createHmac } from 'node:crypto'
import { invalidInput } from '../../core/errors.ts'
import type { Delivery, EventCandidate, Verification, WebhookFacts } from '../../core/triggers/define.ts'
import { matchesSignature } from '../../core/triggers/signatures.ts'

/**
 * Vercel's webhooks (docs/triggers/vercel.md, "Facts"). Switchyard does not create them: the user
 * adds one in the project's settings (or the team's), pointing at the subscription's own address,
 * and pastes the secret Vercel shows once. Each delivery is `{id, type, createdAt, region, payload}`
 * signed with that secret (sources: Vercel webhooks).
 */

export const SIGNATURE_HEADER = 'x-vercel-signature'

/** `x-vercel-signature` = hex(HMAC-SHA1(secret, raw body)) (sources: Vercel webhooks). */
export function signature(secret: string, rawBody: Buffer): string {
  return createHmac('sha1', secret).update(rawBody).digest('hex')
}

/**
 * Checks the signature over the raw bytes with the pasted secret, in constant time; never throws.
 * A SHA-256 digest (64 hex digits), the usual mistake, has the wrong length and is refused.
 */
async function verify(
  delivery: Delivery,
  secrets: { hookSecret?: string; appSecret?: string },
): Promise<Verification> {
  // An account webhook is signed with its own secret, never the integration's client secret; and
  // Vercel cannot be asked whether an event happened, so without the secret nothing is accepted.
  if (!secrets.hookSecret) return 'unverifiable'
  return matchesSignature(
    delivery.headers[SIGNATURE_HEADER],
    Buffer.from(signature(secrets.hookSecret, delivery.rawBody), 'hex'),
    'hex',
  )
}

export interface VercelEvent {
  id: string
  type: string
  createdAt: number
  region?: string | null
  payload: Record<string, unknown>
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

export const isVercelEvent = (value: unknown): value is VercelEvent =>
  isRecord(value) &&
  typeof value.id === 'string' &&
  value.id.length > 0 &&
  typeof value.type === 'string' &&
  isRecord(value.payload)

/** One delivery is one event, keyed by its id: a retried delivery carries the same id and is a duplicate. */
function parse(delivery: Delivery): EventCandidate[] {
  let body: unknown
  try {
    body = JSON.parse(delivery.rawBody.toString('utf8'))
  } catch {
    throw invalidInput([
      { field: 'body', message: 'is not JSON; Vercel sends {"id", "type", "createdAt", "payload"}' },
    ])
  }
  if (!isVercelEvent(body))
    throw invalidInput([
      {
        field: 'body',
        message: 'is not a Vercel webhook event: it needs an id, a type and a payload object',
      },
    ])
  // No actorId: a deployment's creator is the account's own user for every git push, so comparing
  // it with the integration's account would silence every event, not only the agent's own.
  return [{ dedupeKey: body.id, type: body.type, raw: body }]
}

export const vercelWebhooks: WebhookFacts = {
  managed: false,
  // "Retries with exponential backoff up to 24 h" (platform-apis.md, Vercel webhooks: a third-party
  // source, not confirmed by Vercel's own docs): a day.
  retryWindowMs: 24 * 60 * 60 * 1000,
  verify,
  parse,
  signSample: (rawBody, secret) => ({ [SIGNATURE_HEADER]: signature(secret, rawBody) }),
}
