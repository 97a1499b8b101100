import type { ControlInput, ControlRoute as KitControlRoute } from '../../kit/control.ts'
import type { SandboxResponse } from '../http.ts'
import type { Member } from '../model.ts'
import type { TrelloSandbox } from '../sandbox.ts'

/** The control API's conventions (JSON in, JSON out, `{error, description}` on failure) are the kit's. */
export { badRequest, notFound, problem } from '../../kit/control.ts'

export interface ControlContext extends ControlInput {
  sb: TrelloSandbox
  /** `{origin}{prefix}`: the sandbox's base URL as the client addressed it. */
  root: string
}

export type ControlHandler = (ctx: ControlContext) => SandboxResponse | Promise<SandboxResponse>

export type ControlRoute = KitControlRoute<ControlContext>

/** A member named by username, id or email. */
export function findMember(ctx: ControlContext, ref: unknown): Member | undefined {
  if (typeof ref !== 'string' || !ref) return undefined
  const { store } = ctx.sb
  return ref.includes('@') ? store.memberByEmail(ref) : store.memberByRef(ref)
}

export const isPositiveInt = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value > 0
export const isNonNegativeInt = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0
