import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { setTimeout as sleep } from 'node:timers/promises'
import { incomingRequest, sendSandboxResponse } from './fastify.ts'
import { faultName, type Fault, type FaultInjector } from './faults.ts'
import type { IncomingRequest, SandboxResponse } from './http.ts'
import type { RequestLog } from './request-log.ts'

/** What the request skeleton needs of a sandbox instance: its clock, faults and log. */
export interface SandboxMachinery {
  now(): number
  readonly faults: FaultInjector
  readonly requestLog: RequestLog
}

/** A non-control request, as a sandbox has read it. */
export interface RoutedRequest {
  /**
   * The path, relative to the platform, that an injected fault's `match.path` may start with
   * (`/api/v2/…`, `/1/…`); undefined where faults never apply (web pages).
   */
  faultPath?: string
  /** The account the request is for, in sandboxes with accounts; logged with it. */
  account?: string | null
  /**
   * The platform's own answer. `fault` is the injected fault taken for this request when
   * `faultReply` left it to the platform (a fault with `platform` fields: what the model sandboxes
   * do to an answer rather than instead of it).
   */
  answer(fault?: Fault): SandboxResponse | Promise<SandboxResponse>
}

/** One sandbox as the skeleton serves it: its routes and its own words for faults. */
export interface SandboxSite<R extends RoutedRequest = RoutedRequest> {
  machinery: SandboxMachinery
  /** `{prefix}/_control/...`: answered at once, never faulted or logged. `path` starts with `/`. */
  control(req: IncomingRequest, path: string, root: string): SandboxResponse | Promise<SandboxResponse>
  /** `relative` is the path after the prefix, as received; `root` is `{origin}{prefix}`. */
  route(req: IncomingRequest, relative: string, root: string): R
  /** What an injected fault answers in the platform's words; undefined when the fault is latency only. */
  faultReply(fault: Fault, routed: R): SandboxResponse | undefined
  /** The largest body accepted, when larger than the host app's. */
  bodyLimit?: number
  /** Runs first on every request, control requests included. */
  beforeRequest?(): void
  close?(): void | Promise<void>
}

/**
 * A sandbox as a Fastify plugin, registered under its prefix. One catch-all route feeds the
 * sandbox's own router, so unknown paths get the platform's 404 rather than Fastify's. Each
 * request goes: control API, or fault taken → latency → drop → route → record → send.
 */
export function sandboxPlugin<R extends RoutedRequest>(
  build: (prefix: string) => SandboxSite<R>,
): FastifyPluginAsync {
  return async (app) => {
    const prefix = app.prefix
    const site = build(prefix)
    const { machinery } = site

    // Bodies stay raw and are parsed per endpoint: API JSON, OAuth form or signed bodies and control
    // JSON each need their own answer to a bad body. Kept as bytes, so an uploaded file arrives
    // intact. Only this plugin's encapsulated scope changes.
    app.removeAllContentTypeParsers()
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))

    const handle = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      site.beforeRequest?.()
      const req = incomingRequest(request)
      const relative = req.path.slice(prefix.length) || '/'
      const root = `${req.origin}${prefix}`
      if (relative === '/_control' || relative.startsWith('/_control/')) {
        return sendSandboxResponse(
          reply,
          await site.control(req, relative.slice('/_control'.length) || '/', root),
        )
      }
      const startedAt = machinery.now()
      const routed = site.route(req, relative, root)
      const fault =
        routed.faultPath === undefined
          ? undefined
          : machinery.faults.take(req.method, req.path, routed.faultPath)
      const record = (status: number | null) =>
        machinery.requestLog.record(req, {
          status,
          startedAt,
          finishedAt: machinery.now(),
          fault: fault ? faultName(fault) : null,
          account: routed.account,
        })

      if (fault?.latency_ms) await sleep(fault.latency_ms)
      if (fault?.drop) {
        record(null)
        reply.hijack()
        request.raw.socket.destroy()
        return
      }
      const response = (fault && site.faultReply(fault, routed)) ?? (await routed.answer(fault))
      record(response.status)
      return sendSandboxResponse(reply, response)
    }

    app.addHook('onClose', async () => {
      await site.close?.()
    })
    const options = site.bodyLimit ? { bodyLimit: site.bodyLimit } : {}
    app.all('/', options, handle)
    app.all('/*', options, handle)
  }
}

/** The answer an injected error status gets: the platform's body, plus Retry-After when the fault gives one. */
export function withRetryAfter(fault: Fault, response: SandboxResponse): SandboxResponse {
  return fault.retry_after === undefined
    ? response
    : { ...response, headers: { ...response.headers, 'retry-after': String(fault.retry_after) } }
}
