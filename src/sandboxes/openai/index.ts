import type { FastifyPluginAsync } from 'fastify'
import type { Fault } from '../kit/faults.ts'
import { sandboxPlugin } from '../kit/plugin.ts'
import { openaiIds } from '../model-kit/ids.ts'
import { handleModelControl } from '../model-kit/control.ts'
import { ModelSandbox } from '../model-kit/sandbox.ts'
import { openaiFaultAnswer, openaiRoute } from './routes.ts'

/** Prefix the sandbox server mounts the plugin at; the base URL clients use is `{prefix}/v1`. */
export const DEFAULT_PREFIX = '/openai'

/** An injected fault's answer in OpenAI's words; undefined leaves the request to the model (latency, model faults). */
function faultReply(fault: Fault) {
  if (!fault.rate_limit && fault.status === undefined) return undefined
  const answer = openaiFaultAnswer({
    status: fault.status,
    rateLimit: fault.rate_limit ? { retryAfter: fault.rate_limit.retry_after } : undefined,
    retryAfter: fault.retry_after,
  })
  return { ...answer, headers: { ...answer.headers, 'x-request-id': openaiIds.request() } }
}

/**
 * The OpenAI sandbox (Chat Completions, Responses, Models) as a Fastify plugin, registered with
 * `{ prefix: '/openai' }` (docs/sandbox.md, "Model sandbox").
 */
export function openaiSandbox(): FastifyPluginAsync {
  return sandboxPlugin(() => {
    const sandbox = new ModelSandbox('openai')
    return {
      machinery: sandbox,
      control: (req, path) => handleModelControl(sandbox, req, path),
      faultReply,
      route: (req, relative) => openaiRoute(sandbox, req, relative),
    }
  })
}
