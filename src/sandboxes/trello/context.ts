import type { IncomingRequest } from './http.ts'
import type { App, Member, Scope, Token } from './model.ts'
import type { Params } from './params.ts'
import type { TrelloSandbox } from './sandbox.ts'
import type { TrelloStore } from './state.ts'

/** Who is calling: the member, through which app and token, with which scopes. */
export interface Actor {
  member: Member
  /** null for requests made through `POST /_control/act` (they act as the Trello web UI would). */
  app: App | null
  token: Token | null
  scopes: ReadonlySet<Scope>
}

/** What an API handler receives. */
export interface ApiContext {
  sb: TrelloSandbox
  store: TrelloStore
  req: IncomingRequest
  /** Path parameters, decoded. */
  path: Record<string, string>
  /** Arguments from query, form body and JSON body. */
  params: Params
  actor: Actor
  now: number
}
