import { PathRouter } from '../kit/router.ts'
import type { Access, Credential, ScopeResource } from './auth.ts'
import type { IncomingRequest, SandboxResponse } from './http.ts'
import type { Account, User, Via } from './model.ts'
import type { ZendeskSandbox } from './sandbox.ts'
import type { SandboxStore } from './state.ts'

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** What an API handler receives: the account, the authenticated caller and the request. */
export interface ApiContext {
  sandbox: ZendeskSandbox
  store: SandboxStore
  account: Account
  user: User
  credential: Credential
  req: IncomingRequest
  params: Record<string, string>
  /** Account base URL as the client addressed it, e.g. `http://127.0.0.1:4010/zendesk/acme`. */
  base: string
  now: number
  /** Parsed JSON body (undefined when there is none). */
  body: unknown
  /** How a write reached Zendesk: the API (default), or the agent UI for requests made through the control API's act. */
  via?: Via
}

export type AnonymousContext = Omit<ApiContext, 'user' | 'credential'>

export interface ApiRoute {
  method: HttpMethod
  /** `:name` matches an integer id, `{name}` any one path segment. No `.json` suffix here. */
  path: string
  access: Access
  /** OAuth scope resource; null when any valid token will do. */
  scope: ScopeResource | null
  handle: (ctx: ApiContext) => SandboxResponse | Promise<SandboxResponse>
  /** The body is the handler's as bytes (a file), not JSON to parse. */
  rawBody?: boolean
  /** If set, callers without (valid password) credentials get this instead of a 401. */
  anonymous?: (ctx: AnonymousContext) => SandboxResponse
}

/** Rails routes: no trailing slash, `.json` already stripped by the caller. */
export class ApiRouter extends PathRouter<ApiRoute> {
  constructor(routes: ApiRoute[]) {
    super(routes, { trailingSlash: false })
  }
}
