import { isRecord, parseBody, type IncomingRequest, type SandboxResponse } from '../http.ts'
import type { TrelloSandbox } from '../sandbox.ts'
import { actHandler } from './act.ts'
import { badRequest, notFound, problem, type ControlRoute } from './common.ts'
import * as machinery from './machinery.ts'
import * as world from './world.ts'

/**
 * The sandbox-only control API at `{prefix}/_control/...` (JSON in, JSON out; documented in
 * docs/sandbox.md). No authentication: it exists for local scripts and tests.
 */
const SEGMENT = '([^/]+)'

function routes(prefix: string): ControlRoute[] {
  return [
    { method: 'GET', pattern: /^\/members$/, handle: world.listMembers },
    { method: 'POST', pattern: /^\/members$/, handle: world.addMember },
    { method: 'GET', pattern: /^\/apps$/, handle: world.listApps },
    { method: 'POST', pattern: /^\/apps$/, handle: world.addApp },
    { method: 'GET', pattern: /^\/boards$/, handle: world.listBoards },
    { method: 'POST', pattern: /^\/boards$/, handle: world.addBoard },
    { method: 'POST', pattern: /^\/tokens$/, handle: world.addToken },
    { method: 'DELETE', pattern: new RegExp(`^/tokens/${SEGMENT}$`), handle: world.removeToken },
    { method: 'GET', pattern: /^\/webhooks$/, handle: world.listWebhooks },
    { method: 'POST', pattern: /^\/act$/, handle: actHandler(prefix) },
    { method: 'GET', pattern: /^\/faults$/, handle: machinery.listFaults },
    { method: 'POST', pattern: /^\/faults$/, handle: machinery.addFault },
    { method: 'DELETE', pattern: /^\/faults$/, handle: machinery.clearFaults },
    { method: 'DELETE', pattern: new RegExp(`^/faults/${SEGMENT}$`), handle: machinery.removeFault },
    { method: 'GET', pattern: /^\/requests$/, handle: machinery.listRequests },
    { method: 'DELETE', pattern: /^\/requests$/, handle: machinery.clearRequests },
    { method: 'GET', pattern: /^\/deliveries$/, handle: machinery.listDeliveries },
    { method: 'DELETE', pattern: /^\/deliveries$/, handle: machinery.clearDeliveries },
    { method: 'GET', pattern: new RegExp(`^/deliveries/${SEGMENT}$`), handle: machinery.getDelivery },
    { method: 'GET', pattern: /^\/delivery-settings$/, handle: machinery.getDeliverySettings },
    { method: 'PUT', pattern: /^\/delivery-settings$/, handle: machinery.putDeliverySettings },
    { method: 'GET', pattern: /^\/clock$/, handle: machinery.getClock },
    { method: 'POST', pattern: /^\/clock$/, handle: machinery.moveClock },
    { method: 'GET', pattern: /^\/rate-limits$/, handle: machinery.getRateLimits },
    { method: 'PUT', pattern: /^\/rate-limits$/, handle: machinery.putRateLimits },
    { method: 'POST', pattern: /^\/reset$/, handle: machinery.reset },
  ]
}

export class ControlApi {
  private readonly routes: ControlRoute[]

  constructor(
    private readonly sb: TrelloSandbox,
    prefix: string,
  ) {
    this.routes = routes(prefix)
  }

  async handle(req: IncomingRequest, path: string, root: string): Promise<SandboxResponse> {
    const normalized = path.replace(/\/+$/, '') || '/'
    let methodMismatch = false
    for (const route of this.routes) {
      const found = route.pattern.exec(normalized)
      if (!found) continue
      if (route.method !== req.method) {
        methodMismatch = true
        continue
      }
      const parsed = parseBody(req)
      if (!parsed.ok || !isRecord(parsed.value)) return badRequest('body must be a JSON object')
      const params = found.slice(1).map((s) => {
        try {
          return decodeURIComponent(s)
        } catch {
          return s
        }
      })
      return route.handle({ sb: this.sb, req, params, body: parsed.value, root })
    }
    return methodMismatch ? problem(405, 'method_not_allowed', `${req.method} is not supported here`) : notFound(`no control route ${path}`)
  }
}
