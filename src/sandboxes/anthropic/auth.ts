import { header, type IncomingRequest } from '../kit/http.ts'
import { Refusal } from '../model-kit/refusal.ts'
import { anthropicError, refuse } from './errors.ts'

/**
 * Anthropic's key check: `x-api-key` (or `Authorization: Bearer`, as the SDK's `authToken`
 * sends). The sandbox accepts any key that starts with `sk-ant-` (Anthropic's keys do) and refuses
 * others with Anthropic's 401 texts; `anthropic-version` is required as the API requires it
 * (docs/sandbox.md, "Keys").
 */
export function anthropicKey(req: IncomingRequest): string {
  const bearer = /^Bearer\s+(.+)$/i.exec(header(req, 'authorization')?.trim() ?? '')?.[1]?.trim()
  const key = header(req, 'x-api-key')?.trim() || bearer
  if (!key) throw new Refusal(anthropicError(401, 'authentication_error', 'x-api-key header is required', ''))
  if (!key.startsWith('sk-ant-'))
    throw new Refusal(anthropicError(401, 'authentication_error', 'invalid x-api-key', ''))
  if (!header(req, 'anthropic-version')) refuse('anthropic-version: header is required')
  return key
}
