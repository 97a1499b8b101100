import { handleApi } from '../api.ts'
import type { Actor } from '../context.ts'
import { jsonResponse, type IncomingRequest } from '../http.ts'
import { SCOPES } from '../model.ts'
import { badRequest, findMember, type ControlHandler } from './common.ts'

/**
 * `POST /_control/act {member, method?, path, params?, key?}`: performs one API request as a
 * member, the way that person clicking in Trello's web UI would — all scopes, no rate limit,
 * no faults, not logged — so tests can make "another user" move a card and watch triggers.
 * `path` is `/1/...` (a query string is allowed); `params` go in the query for GET/DELETE and
 * in a JSON body otherwise; `key` makes the action carry that app as `appCreator`. Answers
 * `{status, body}` (JSON when the API answered JSON, else text).
 */
const METHODS = ['GET', 'POST', 'PUT', 'DELETE']

export function actHandler(prefix: string): ControlHandler {
  return async (ctx) => {
    const { sb, body } = ctx
    const member = findMember(ctx, body.member)
    if (!member) return badRequest('member must name a member (username, id or email)')
    const method = typeof body.method === 'string' ? body.method.toUpperCase() : 'GET'
    if (!METHODS.includes(method)) return badRequest(`method must be one of ${METHODS.join(', ')}`)
    if (typeof body.path !== 'string' || !body.path.startsWith('/1/'))
      return badRequest('path must start with /1/')
    const params = body.params ?? {}
    if (typeof params !== 'object' || params === null || Array.isArray(params))
      return badRequest('params must be an object')
    const app = typeof body.key === 'string' ? sb.store.apps.get(body.key) : null
    if (app === undefined) return badRequest('key does not name an app')

    const url = new URL(body.path, 'http://sandbox.invalid')
    const bodyless = method === 'GET' || method === 'DELETE'
    if (bodyless)
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, String(value))
    const req: IncomingRequest = {
      method,
      path: `${prefix}${url.pathname}`,
      query: url.searchParams,
      headers: bodyless ? {} : { 'content-type': 'application/json' },
      rawBody: bodyless ? undefined : JSON.stringify(params),
      origin: ctx.req.origin,
      remoteAddress: ctx.req.remoteAddress,
    }
    const actor: Actor = { member, app, token: null, scopes: new Set(SCOPES) }
    const response = await handleApi(sb, req, url.pathname, actor)
    let answer: unknown = response.payload
    if ((response.headers['content-type'] ?? '').includes('json') && response.payload)
      answer = JSON.parse(response.payload)
    return jsonResponse(200, { status: response.status, body: answer ?? null })
  }
}
