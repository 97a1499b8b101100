import { jsonResponse, type IncomingRequest, type SandboxResponse } from '../http.ts'
import type { Member } from '../model.ts'
import type { TrelloSandbox } from '../sandbox.ts'

/** The control API's own conventions: JSON in, JSON out, `{error, description}` on failure. */
export interface ControlContext {
  sb: TrelloSandbox
  req: IncomingRequest
  /** Captured path segments, decoded. */
  params: string[]
  body: Record<string, unknown>
  /** `{origin}{prefix}`: the sandbox's base URL as the client addressed it. */
  root: string
}

export type ControlHandler = (ctx: ControlContext) => SandboxResponse | Promise<SandboxResponse>

export interface ControlRoute {
  method: string
  pattern: RegExp
  handle: ControlHandler
}

export const problem = (status: number, error: string, description: string) => jsonResponse(status, { error, description })
export const badRequest = (description: string) => problem(400, 'invalid_request', description)
export const notFound = (description: string) => problem(404, 'not_found', description)

/** A member named by username, id or email. */
export function findMember(ctx: ControlContext, ref: unknown): Member | undefined {
  if (typeof ref !== 'string' || !ref) return undefined
  const { store } = ctx.sb
  return ref.includes('@') ? store.memberByEmail(ref) : store.memberByRef(ref)
}

export const isPositiveInt = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value > 0
export const isNonNegativeInt = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0
