import { createHmac } from 'node:crypto'

/**
 * `X-Trello-Webhook` = base64(HMAC-SHA1(key = app secret, message = raw body + callbackURL
 * exactly as registered)) (sources: Trello actions and webhooks, T-ARCH webhooks.html). The body is hashed as UTF-8.
 */
export function webhookSignature(secret: string, body: string, callbackURL: string): string {
  return createHmac('sha1', secret)
    .update(body + callbackURL, 'utf8')
    .digest('base64')
}

export const SIGNATURE_HEADER = 'x-trello-webhook'
