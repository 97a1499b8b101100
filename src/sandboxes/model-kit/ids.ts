import { BASE62, randomHex, randomString } from '../kit/ids.ts'

/**
 * The providers' id shapes, as their answers show them: OpenAI's `chatcmpl-…` (29 base62),
 * `call_…` (24 base62), `resp_…`/`msg_…`/`fc_…` (48 hex) and `req_…` (32 hex); Anthropic's
 * `msg_01…`, `toolu_01…` and `req_011C…` (base62).
 */
export const openaiIds = {
  chatCompletion: () => `chatcmpl-${randomString(BASE62, 29)}`,
  toolCall: () => `call_${randomString(BASE62, 24)}`,
  response: () => `resp_${randomHex(24)}`,
  message: () => `msg_${randomHex(24)}`,
  functionCall: () => `fc_${randomHex(24)}`,
  request: () => `req_${randomHex(16)}`,
}

export const anthropicIds = {
  message: () => `msg_01${randomString(BASE62, 22)}`,
  toolUse: () => `toolu_01${randomString(BASE62, 22)}`,
  request: () => `req_011C${randomString(BASE62, 20)}`,
}
