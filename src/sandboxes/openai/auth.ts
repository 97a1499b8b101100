import { header, type IncomingRequest } from '../kit/http.ts'
import { Refusal } from '../model-kit/refusal.ts'
import { openaiError } from './errors.ts'

/**
 * OpenAI's API key check: `Authorization: Bearer <key>`. The sandbox accepts any key that starts
 * with `sk-` (OpenAI's keys do: `sk-…`, `sk-proj-…`) and refuses others with OpenAI's 401 texts
 * (docs/sandbox.md, "Keys").
 */
const NO_KEY =
  "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username. You can obtain an API key from https://platform.openai.com/account/api-keys."

/** OpenAI shows a refused key with all but its ends masked. */
function masked(key: string): string {
  return key.length <= 8
    ? '*'.repeat(key.length)
    : `${key.slice(0, 3)}${'*'.repeat(key.length - 7)}${key.slice(-4)}`
}

/** The caller's key, or a thrown 401. */
export function apiKey(req: IncomingRequest): string {
  const raw = header(req, 'authorization')?.trim() ?? ''
  const match = /^Bearer\s+(.*)$/i.exec(raw)
  const key = match?.[1]?.trim() ?? ''
  if (!key) throw new Refusal(openaiError(401, NO_KEY, 'invalid_request_error'))
  if (!key.startsWith('sk-'))
    throw new Refusal(
      openaiError(
        401,
        `Incorrect API key provided: ${masked(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        'invalid_request_error',
        null,
        'invalid_api_key',
      ),
    )
  return key
}
