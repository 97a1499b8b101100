import { jsonResponse, textResponse, type SandboxResponse } from './http.ts'

/**
 * Trello's error bodies (platform-apis.md §2.4): mostly plain text, captured as
 * `text/plain; charset=utf-8` (nathonius/obsidian-trello#21, Manatee.Trello#24), which is what the
 * kit's textResponse sends. [CAP] marks text captured from real responses, [UNV] a choice made
 * where the facts are silent.
 */

/** Thrown by handlers and lookups; the API pipeline answers with its response. */
export class ApiError extends Error {
  constructor(readonly response: SandboxResponse) {
    super(`${response.status} ${response.payload ?? ''}`)
  }
}

/** Missing or unknown API key: 401 (§2.4, gist roachhd) [CAP]. */
export const invalidKey = () => textResponse(401, 'invalid key')
/** Unknown, expired or revoked token, or a token minted for another key: 401 [CAP]. */
export const invalidToken = () => textResponse(401, 'invalid token')
/**
 * The token lacks the scope, or its member cannot see the model: 401 [CAP for the member
 * variant, T-JS members.live.test.ts; this generic wording is used everywhere].
 */
export const unauthorizedPermission = () => textResponse(401, 'unauthorized permission requested')
/** `GET /1/tokens/{other}/webhooks` with someone else's token [CAP api-docs#156]. */
export const unauthorizedToken = () => textResponse(401, 'unauthorized token')
/** An id that is not a 24-hex ObjectId (or a shortLink where one is allowed): 400 [CAP bugwarrior#639]. */
export const invalidId = () => textResponse(400, 'invalid id')
/** A bad or missing argument: `invalid value for idList` [CAP roblox-trello#2]. */
export const invalidValue = (field: string) => textResponse(400, `invalid value for ${field}`)
/**
 * A missing card: `Could not find the card` (404, text/plain, captured 2021 in
 * nathonius/obsidian-trello#21) [CAP].
 */
export const cardNotFound = () => textResponse(404, 'Could not find the card')
/**
 * Any other missing model (board, list, label, checklist, member, webhook, notification):
 * `model not found` 404 — captured for members (adunkman/node-trello#50); assumed for the rest [UNV].
 */
export const modelNotFound = () => textResponse(404, 'model not found')
/** No such route or method: 404 `The requested resource was not found.` [CAP mheap/trello-cli#74]. */
export const routeNotFound = () => textResponse(404, 'The requested resource was not found.')
/** OAuth 1.0a signature mismatch: `Invalid Signature` [CAP node-trello#19/#20]; 401 here [UNV status]. */
export const invalidSignature = () => textResponse(401, 'Invalid Signature')
/** A nonce seen before within the window, or a stale timestamp [UNV wording]. */
export const invalidNonce = () => textResponse(401, 'Invalid nonce')
export const invalidTimestamp = () => textResponse(401, 'Invalid timestamp')
/** A body that cannot be parsed [UNV]. */
export const invalidJson = () => textResponse(400, 'Invalid JSON')

export const TOKEN_LIMIT_BODY = { error: 'API_TOKEN_LIMIT_EXCEEDED', message: 'Rate limit exceeded' } as const
export const KEY_LIMIT_BODY = { error: 'API_KEY_LIMIT_EXCEEDED', message: 'Rate limit exceeded' } as const

/** 429 bodies are JSON (§2.5, T-RL) [OFF]. */
export function rateLimited(kind: 'token' | 'key', headers: Record<string, string> = {}): SandboxResponse {
  return jsonResponse(429, kind === 'token' ? TOKEN_LIMIT_BODY : KEY_LIMIT_BODY, headers)
}

export function fail(response: SandboxResponse): never {
  throw new ApiError(response)
}
