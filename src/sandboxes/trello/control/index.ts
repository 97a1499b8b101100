import { routeControl } from '../../kit/control.ts'
import type { IncomingRequest, SandboxResponse } from '../http.ts'
import type { TrelloSandbox } from '../sandbox.ts'
import { actHandler } from './act.ts'
import type { ControlRoute } from './common.ts'
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
    { method: 'GET', pattern: /^\/faults$/, handle: (ctx) => ctx.sb.control.listFaults() },
    { method: 'POST', pattern: /^\/faults$/, handle: (ctx) => ctx.sb.control.addFault(ctx.body) },
    { method: 'DELETE', pattern: /^\/faults$/, handle: (ctx) => ctx.sb.control.clearFaults() },
    {
      method: 'DELETE',
      pattern: new RegExp(`^/faults/${SEGMENT}$`),
      handle: (ctx) => ctx.sb.control.removeFault(ctx.params[0] as string),
    },
    { method: 'GET', pattern: /^\/requests$/, handle: (ctx) => ctx.sb.control.listRequests(ctx.req.query) },
    { method: 'DELETE', pattern: /^\/requests$/, handle: (ctx) => ctx.sb.control.clearRequests() },
    { method: 'GET', pattern: /^\/deliveries$/, handle: machinery.listDeliveries },
    { method: 'DELETE', pattern: /^\/deliveries$/, handle: machinery.clearDeliveries },
    { method: 'GET', pattern: new RegExp(`^/deliveries/${SEGMENT}$`), handle: machinery.getDelivery },
    { method: 'GET', pattern: /^\/delivery-settings$/, handle: machinery.getDeliverySettings },
    { method: 'PUT', pattern: /^\/delivery-settings$/, handle: machinery.putDeliverySettings },
    { method: 'GET', pattern: /^\/clock$/, handle: (ctx) => ctx.sb.control.getClock() },
    { method: 'POST', pattern: /^\/clock$/, handle: (ctx) => ctx.sb.control.moveClock(ctx.body) },
    { method: 'GET', pattern: /^\/rate-limits$/, handle: machinery.getRateLimits },
    { method: 'PUT', pattern: /^\/rate-limits$/, handle: machinery.putRateLimits },
    { method: 'POST', pattern: /^\/reset$/, handle: (ctx) => ctx.sb.control.reset() },
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

  handle(req: IncomingRequest, path: string, root: string): Promise<SandboxResponse> {
    return routeControl(this.routes, req, path, (input) => ({ ...input, sb: this.sb, root }))
  }
}
