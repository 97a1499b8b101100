import { PathRouter } from '../kit/router.ts'
import type { ApiContext } from './context.ts'
import type { SandboxResponse } from './http.ts'
import type { Scope } from './model.ts'

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE'

export interface ApiRoute {
  method: HttpMethod
  /** Under `/1`; `{name}` matches one path segment. */
  path: string
  /** The token scope the route needs (sources: Trello authentication: read, write, account). */
  scope: Scope
  handle: (ctx: ApiContext) => SandboxResponse | Promise<SandboxResponse>
}

/** Trello answers `/1/cards/{id}/` like `/1/cards/{id}`. */
export class ApiRouter extends PathRouter<ApiRoute> {
  constructor(routes: ApiRoute[]) {
    super(routes, { trailingSlash: true })
  }
}
