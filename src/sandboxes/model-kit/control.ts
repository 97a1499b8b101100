import {
  badRequest,
  notFound,
  queryCount,
  routeControl,
  type ControlInput,
  type ControlRoute,
} from '../kit/control.ts'
import { emptyResponse, jsonResponse, type IncomingRequest, type SandboxResponse } from '../kit/http.ts'
import type { ModelSandbox } from './sandbox.ts'
import { parseTurns, type Scenario } from './scenarios.ts'

/**
 * The model sandboxes' control API at `{prefix}/_control/...` (docs/sandbox.md): the kit's clock,
 * faults, request log and reset, plus scenarios (scripted turns) and the calls log.
 */

interface ControlContext extends ControlInput {
  sandbox: ModelSandbox
}

const SEGMENT = '([^/]+)'

function scenarioJson(s: Scenario): Record<string, unknown> {
  return { id: s.id, api_key_bound: s.apiKey !== null, turns: s.turns.length, taken: s.taken }
}

function putScenario(ctx: ControlContext): SandboxResponse {
  const { id, api_key: apiKey, turns } = ctx.body
  if (id !== undefined && (typeof id !== 'string' || !/^[\w.-]{1,100}$/.test(id)))
    return badRequest('id must be 1 to 100 letters, digits, "_", "." or "-"')
  if (apiKey !== undefined && (typeof apiKey !== 'string' || !apiKey))
    return badRequest('api_key must be a non-empty string')
  const parsed = parseTurns(turns)
  if (!parsed.ok) return badRequest(parsed.problem)
  const scenario = ctx.sandbox.store.scenarios.put({ id, apiKey, turns: parsed.value })
  return jsonResponse(201, scenarioJson(scenario))
}

const machinery = (ctx: ControlContext) => ctx.sandbox.control
const scenarios = (ctx: ControlContext) => ctx.sandbox.store.scenarios

const routes: ControlRoute<ControlContext>[] = [
  { method: 'POST', pattern: /^\/scenarios$/, handle: putScenario },
  {
    method: 'GET',
    pattern: /^\/scenarios$/,
    handle: (ctx) => jsonResponse(200, { scenarios: scenarios(ctx).list().map(scenarioJson) }),
  },
  {
    method: 'DELETE',
    pattern: /^\/scenarios$/,
    handle: (ctx) => {
      scenarios(ctx).clear()
      return emptyResponse(204)
    },
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/scenarios/${SEGMENT}$`),
    handle: (ctx) => {
      const found = scenarios(ctx).get(ctx.params[0] as string)
      return found ? jsonResponse(200, scenarioJson(found)) : notFound('no such scenario')
    },
  },
  {
    method: 'DELETE',
    pattern: new RegExp(`^/scenarios/${SEGMENT}$`),
    handle: (ctx) =>
      scenarios(ctx).remove(ctx.params[0] as string) ? emptyResponse(204) : notFound('no such scenario'),
  },
  {
    method: 'GET',
    pattern: /^\/calls$/,
    handle: (ctx) => {
      const scenario = ctx.req.query.get('scenario')
      const calls = ctx.sandbox.store.calls.list(
        queryCount(ctx.req.query, 'limit'),
        (c) => !scenario || c.scenario === scenario,
      )
      return jsonResponse(200, { calls })
    },
  },
  {
    method: 'DELETE',
    pattern: /^\/calls$/,
    handle: (ctx) => {
      ctx.sandbox.store.calls.clear()
      return emptyResponse(204)
    },
  },
  { method: 'GET', pattern: /^\/faults$/, handle: (ctx) => machinery(ctx).listFaults() },
  { method: 'POST', pattern: /^\/faults$/, handle: (ctx) => machinery(ctx).addFault(ctx.body) },
  { method: 'DELETE', pattern: /^\/faults$/, handle: (ctx) => machinery(ctx).clearFaults() },
  {
    method: 'DELETE',
    pattern: new RegExp(`^/faults/${SEGMENT}$`),
    handle: (ctx) => machinery(ctx).removeFault(ctx.params[0] as string),
  },
  { method: 'GET', pattern: /^\/requests$/, handle: (ctx) => machinery(ctx).listRequests(ctx.req.query) },
  { method: 'DELETE', pattern: /^\/requests$/, handle: (ctx) => machinery(ctx).clearRequests() },
  { method: 'GET', pattern: /^\/clock$/, handle: (ctx) => machinery(ctx).getClock() },
  { method: 'POST', pattern: /^\/clock$/, handle: (ctx) => machinery(ctx).moveClock(ctx.body) },
  { method: 'POST', pattern: /^\/reset$/, handle: (ctx) => machinery(ctx).reset() },
]

export function handleModelControl(
  sandbox: ModelSandbox,
  req: IncomingRequest,
  path: string,
): Promise<SandboxResponse> {
  return routeControl(routes, req, path, (input) => ({ ...input, sandbox }))
}
