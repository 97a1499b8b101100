import { createHmac } from 'node:crypto'

/**
 * `X-Zendesk-Webhook-Signature` = base64(HMAC-SHA256(key = the webhook's signing secret,
 * message = timestamp + body)), the timestamp being the raw `X-Zendesk-Webhook-Signature-Timestamp`
 * value, with no separator (sources: Zendesk webhooks, Z-WHV).
 */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret)
    .update(timestamp + body, 'utf8')
    .digest('base64')
}

export const SIGNATURE_HEADER = 'x-zendesk-webhook-signature'
export const TIMESTAMP_HEADER = 'x-zendesk-webhook-signature-timestamp'
