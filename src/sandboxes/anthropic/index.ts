import type { FastifyPluginAsync } from 'fastify'
import type { Fault } from '../kit/faults.ts'
import { sandboxPlugin } from '../kit/plugin.ts'
import { handleModelControl } from '../model-kit/control.ts'
import { anthropicIds } from '../model-kit/ids.ts'
import { ModelSandbox } from '../model-kit/sandbox.ts'
import { anthropicFaultAnswer, anthropicRoute } from './routes.ts'

/** Prefix the sandbox server mounts the plugin at; it is the base URL clients use. */
export const DEFAULT_PREFIX = '/anthropic'

/** An injected status (529 is `overloaded_error`) or 429 in Anthropic's words; undefined leaves the rest to the model. */
function faultReply(fault: Fault) {
  if (!fault.rate_limit && fault.status === undefined) return undefined
  return anthropicFaultAnswer(
    {
      status: fault.status,
      rateLimit: fault.rate_limit ? { retryAfter: fault.rate_limit.retry_after } : undefined,
      retryAfter: fault.retry_after,
    },
    anthropicIds.request(),
  )
}

/**
 * The Anthropic sandbox (Messages) as a Fastify plugin, registered with `{ prefix: '/anthropic' }`
 * (docs/sandbox.md, "Model sandbox").
 */
export function anthropicSandbox(): FastifyPluginAsync {
  return sandboxPlugin(() => {
    const sandbox = new ModelSandbox('anthropic')
    return {
      machinery: sandbox,
      control: (req, path) => handleModelControl(sandbox, req, path),
      faultReply,
      route: (req, relative) => anthropicRoute(sandbox, req, relative),
    }
  })
}
