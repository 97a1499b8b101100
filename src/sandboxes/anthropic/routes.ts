import type { Fault } from '../kit/faults.ts'
import { header, type IncomingRequest, type SandboxResponse } from '../kit/http.ts'
import type { TransportFault } from '../model-kit/engine.ts'
import { anthropicIds } from '../model-kit/ids.ts'
import { isSandboxModel, SCENARIO_HEADER } from '../model-kit/models.ts'
import { isRecord, Refusal } from '../model-kit/refusal.ts'
import type { ModelSandbox } from '../model-kit/sandbox.ts'
import { answerCall } from '../model-kit/serve.ts'
import { anthropicKey } from './auth.ts'
import { anthropicError, rateLimited, refuse, statusFault } from './errors.ts'
import { readMessagesRequest } from './messages-request.ts'
import { messageEvents, messageJson } from './messages-wire.ts'

/**
 * The Anthropic sandbox's API, under base URL `{prefix}` (clients add `/v1/messages`). Each
 * answer carries a `request-id`, and error bodies repeat it, as Anthropic's do.
 */

export function anthropicFaultAnswer(fault: TransportFault, requestId: string): SandboxResponse {
  const answer = fault.rateLimit
    ? rateLimited(fault.rateLimit.retryAfter, requestId)
    : statusFault(fault.status ?? 500, requestId)
  return fault.retryAfter === undefined || fault.rateLimit
    ? answer
    : { ...answer, headers: { ...answer.headers, 'retry-after': String(fault.retryAfter) } }
}

/** A refusal thrown before the request id was known, given it. */
function withRequestId(response: SandboxResponse, requestId: string): SandboxResponse {
  const body = JSON.parse(response.payload ?? '{}') as Record<string, unknown>
  return {
    ...response,
    headers: { ...response.headers, 'request-id': requestId },
    payload: JSON.stringify({ ...body, request_id: requestId }),
  }
}

async function messages(
  sandbox: ModelSandbox,
  req: IncomingRequest,
  requestId: string,
  fault: Fault | undefined,
): Promise<SandboxResponse> {
  const key = anthropicKey(req)
  let body: unknown
  try {
    body = JSON.parse(req.rawBody ?? '')
  } catch {
    refuse('There was an issue with your request body: invalid JSON')
  }
  if (!isRecord(body)) return refuse('Input should be a valid dictionary')
  const scenarioId = header(req, SCENARIO_HEADER)
  const scenario = sandbox.store.scenarios.select(scenarioId, key)
  if (scenarioId && !scenario) refuse(`${SCENARIO_HEADER}: sandbox scenario '${scenarioId}' not found`)
  const request = readMessagesRequest(body)
  const model = request.conversation.model
  if (!isSandboxModel(model))
    throw new Refusal(anthropicError(404, 'not_found_error', `model: ${model}`, requestId))
  const answer = { id: anthropicIds.message(), model }
  return answerCall(sandbox, {
    api: 'messages',
    request: body,
    stream: request.stream,
    conversation: request.conversation,
    scenario,
    injected: fault,
    newCallId: anthropicIds.toolUse,
    headers: { 'request-id': requestId },
    json: (reply) => messageJson(answer, reply),
    events: (reply) => messageEvents(answer, reply),
    errorFor: (transport) => anthropicFaultAnswer(transport, requestId),
  })
}

export function anthropicRoute(sandbox: ModelSandbox, req: IncomingRequest, relative: string) {
  const requestId = anthropicIds.request()
  const path = relative.replace(/\/+$/, '')
  return {
    faultPath: relative,
    answer: async (fault?: Fault): Promise<SandboxResponse> => {
      if (req.method !== 'POST' || path !== '/v1/messages')
        return anthropicError(404, 'not_found_error', 'Not Found', requestId)
      try {
        return await messages(sandbox, req, requestId, fault)
      } catch (error) {
        if (!(error instanceof Refusal)) throw error
        const response = withRequestId(error.response, requestId)
        logRefusal(sandbox, req, response)
        return response
      }
    },
  }
}

function logRefusal(sandbox: ModelSandbox, req: IncomingRequest, response: SandboxResponse): void {
  let request: unknown = null
  try {
    request = JSON.parse(req.rawBody ?? '')
  } catch {
    // An unparsable body is logged as null.
  }
  const parsed = JSON.parse(response.payload ?? '{}') as { error?: { message?: string } }
  sandbox.logCall({
    api: 'messages',
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
