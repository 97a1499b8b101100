import type { Fault } from '../kit/faults.ts'
import { header, type IncomingRequest, type SandboxResponse } from '../kit/http.ts'
import { openaiIds } from '../model-kit/ids.ts'
import { isSandboxModel, SCENARIO_HEADER } from '../model-kit/models.ts'
import { isRecord, Refusal } from '../model-kit/refusal.ts'
import type { ModelSandbox } from '../model-kit/sandbox.ts'
import { answerCall } from '../model-kit/serve.ts'
import type { TransportFault } from '../model-kit/engine.ts'
import { apiKey } from './auth.ts'
import { chatChunks, chatCompletion } from './chat-wire.ts'
import { readChatRequest } from './chat-request.ts'
import {
  notFoundRoute,
  openaiError,
  rateLimited,
  refuse,
  serverError,
  unknownModel,
  unparsableBody,
} from './errors.ts'
import { getModel, listModels } from './models-route.ts'
import { readResponsesRequest } from './responses-request.ts'
import { responseEvents, responseJson } from './responses-wire.ts'

/**
 * The OpenAI sandbox's API, under base URL `{prefix}/v1`: `POST /chat/completions`,
 * `POST /responses`, `GET /models` and `GET /models/{model}`. Each answer carries an
 * `x-request-id`, as OpenAI's do. The checks go as OpenAI's: the key, the body, the request's
 * fields, then the model.
 */

export interface OpenAIRoute {
  faultPath: string
  answer(fault?: Fault): Promise<SandboxResponse>
}

/** OpenAI's answer to an injected status or 429, with Retry-After when given. */
export function openaiFaultAnswer(fault: TransportFault): SandboxResponse {
  const answer = fault.rateLimit ? rateLimited(fault.rateLimit.retryAfter) : serverError(fault.status ?? 500)
  return fault.retryAfter === undefined || fault.rateLimit
    ? answer
    : { ...answer, headers: { ...answer.headers, 'retry-after': String(fault.retryAfter) } }
}

function readBody(req: IncomingRequest): Record<string, unknown> {
  let body: unknown
  try {
    body = JSON.parse(req.rawBody ?? '')
  } catch {
    throw new Refusal(unparsableBody())
  }
  if (!isRecord(body)) refuse('Invalid request body: expected a JSON object.')
  return body
}

async function modelCall(
  sandbox: ModelSandbox,
  req: IncomingRequest,
  api: 'chat.completions' | 'responses',
  headers: Record<string, string>,
  fault: Fault | undefined,
): Promise<SandboxResponse> {
  const key = apiKey(req)
  const body = readBody(req)
  const scenarioId = header(req, SCENARIO_HEADER)
  const scenario = sandbox.store.scenarios.select(scenarioId, key)
  if (scenarioId && !scenario) refuse(`Sandbox scenario '${scenarioId}' not found.`, SCENARIO_HEADER)
  const created = Math.floor(sandbox.now() / 1000)
  const common = {
    request: body,
    scenario,
    injected: fault,
    headers,
    newCallId: openaiIds.toolCall,
    errorFor: openaiFaultAnswer,
  }
  if (api === 'chat.completions') {
    const chat = readChatRequest(body)
    if (!isSandboxModel(chat.conversation.model)) throw new Refusal(unknownModel(chat.conversation.model))
    const answer = { id: openaiIds.chatCompletion(), created, model: chat.conversation.model }
    return answerCall(sandbox, {
      ...common,
      api,
      stream: chat.stream,
      conversation: chat.conversation,
      json: (reply) => chatCompletion(answer, reply),
      events: (reply) => chatChunks(answer, reply, chat.includeUsage),
    })
  }
  const request = readResponsesRequest(body)
  if (!isSandboxModel(request.conversation.model)) throw new Refusal(unknownModel(request.conversation.model))
  const answer = { id: openaiIds.response(), createdAt: created, model: request.conversation.model, request }
  return answerCall(sandbox, {
    ...common,
    api,
    stream: request.stream,
    conversation: request.conversation,
    json: (reply) => responseJson(answer, reply),
    events: (reply) => responseEvents(answer, reply),
  })
}

export function openaiRoute(sandbox: ModelSandbox, req: IncomingRequest, relative: string): OpenAIRoute {
  const headers = { 'x-request-id': openaiIds.request(), 'openai-version': '2020-10-01' }
  const path = relative.replace(/\/+$/, '')
  const withHeaders = (response: SandboxResponse): SandboxResponse => ({
    ...response,
    headers: { ...response.headers, ...headers },
  })
  const guarded = async (answer: () => Promise<SandboxResponse> | SandboxResponse, api?: string) => {
    try {
      return withHeaders(await answer())
    } catch (error) {
      if (!(error instanceof Refusal)) throw error
      if (api) logRefusal(sandbox, req, api, error.response)
      return withHeaders(error.response)
    }
  }
  return {
    faultPath: relative,
    answer: (fault) => {
      if (req.method === 'POST' && path === '/v1/chat/completions')
        return guarded(() => modelCall(sandbox, req, 'chat.completions', headers, fault), 'chat.completions')
      if (req.method === 'POST' && path === '/v1/responses')
        return guarded(() => modelCall(sandbox, req, 'responses', headers, fault), 'responses')
      if (req.method === 'GET' && path === '/v1/models')
        return guarded(() => {
          apiKey(req)
          return listModels(headers)
        })
      const model = /^\/v1\/models\/([^/]+)$/.exec(path)
      if (req.method === 'GET' && model)
        return guarded(() => {
          apiKey(req)
          return getModel(decodeURIComponent(model[1] as string), headers)
        })
      return guarded(() => notFoundRoute(req.method, relative))
    },
  }
}

/** A refused model call goes to the calls log too, with OpenAI's message. */
function logRefusal(
  sandbox: ModelSandbox,
  req: IncomingRequest,
  api: string,
  response: SandboxResponse,
): void {
  let request: unknown = null
  try {
    request = JSON.parse(req.rawBody ?? '')
  } catch {
    // An unparsable body is logged as null.
  }
  const parsed = JSON.parse(response.payload ?? '{}') as { error?: { message?: string } }
  sandbox.logCall({
    api,
    model: isRecord(request) && typeof request.model === 'string' ? request.model : null,
    stream: isRecord(request) && request.stream === true,
    scenario: null,
    scripted: false,
    status: response.status,
    error: parsed.error?.message ?? null,
    fault: null,
    finish: null,
    usage: null,
    text: null,
    tool_calls: [],
    request,
  })
}

export { openaiError }
