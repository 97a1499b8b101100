import { createApiClient, type ApiClient, type QueryValue } from '../../src/core/http/api-client.ts'
import { upstreamError } from '../../src/core/http/upstream-errors.ts'
import { RateBudget } from '../../src/core/limits/budget.ts'
import { MemoryBudgetStore } from '../../src/core/limits/budget-memory.ts'
import type { PlatformDefinition } from '../../src/core/platforms/types.ts'

export interface SentRequest {
  method: string
  /** The path as sent without its query, e.g. `/1/cards/5f2b…`. */
  path: string
  /**
   * Query parameters (those of GET and DELETE, and any written into the path) and JSON body fields
   * that had a value; the fields of a nested object are named `outer.inner` (Zendesk's `{ticket: {…}}`).
   */
  params: string[]
}

/**
 * The product's own API client (core/http/api-client.ts) aimed at a sandbox, which also notes what
 * each request sends. Contract tests run the real tool steps through it to learn which parameters
 * the product sends to which endpoint.
 */
export function recordingApiClient(
  platform: PlatformDefinition,
  baseUrl: string,
  headers: Record<string, string>,
): { api: ApiClient; sent: SentRequest[] } {
  const real = createApiClient({
    baseUrl,
    pathPrefix: platform.api.pathPrefix,
    authorize: async () => headers,
    rateLimit: platform.rateLimit,
    budget: {
      budget: new RateBudget(new MemoryBudgetStore()),
      windows: [{ key: 'contract', limit: Number.POSITIVE_INFINITY, windowMs: 0 }],
      agentId: 'contract',
    },
    // The product's own reading of failures, so code that branches on them (a 404 counted as gone) runs as it does live.
    toError: (r) => upstreamError(platform, r),
  })
  const sent: SentRequest[] = []
  const note = (method: string, pathAndQuery: string, params: Record<string, unknown> | undefined) => {
    const [path, query] = pathAndQuery.split('?') as [string, string | undefined]
    // The client leaves undefined values out, and null ones out of a query; a JSON body keeps null.
    // A raw body (a file, as a Blob) has no fields.
    const fields = params instanceof Blob ? [] : paramNames(params, method === 'GET')
    sent.push({ method, path, params: [...new URLSearchParams(query ?? '').keys(), ...fields].sort() })
  }
  const api: ApiClient = {
    request: (req, options) => real.request(req, options),
    get: (path, query?: Record<string, QueryValue>) => {
      note('GET', path, query)
      return real.get(path, query)
    },
    post: (path, body) => {
      note('POST', path, body as Record<string, unknown>)
      return real.post(path, body)
    },
    put: (path, body) => {
      note('PUT', path, body as Record<string, unknown>)
      return real.put(path, body)
    },
    patch: (path, body) => {
      note('PATCH', path, body as Record<string, unknown>)
      return real.patch(path, body)
    },
    delete: (path) => {
      note('DELETE', path, undefined)
      return real.delete(path)
    },
  }
  return { api, sent }
}

/** Names of the parameters that had a value: `ticket.subject` for nested objects. */
export function paramNames(params: Record<string, unknown> | undefined, dropNull = false): string[] {
  return Object.entries(params ?? {})
    .filter(([, v]) => v !== undefined && !(v === null && dropNull))
    .flatMap(([k, v]) =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? paramNames(v as Record<string, unknown>).map((inner) => `${k}.${inner}`)
        : [k],
    )
}
