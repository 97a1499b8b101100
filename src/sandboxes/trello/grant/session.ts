import { cookieValue, type IncomingRequest } from '../http.ts'
import { hex } from '../ids.ts'
import type { Member } from '../model.ts'
import type { TrelloSandbox } from '../sandbox.ts'
import { MS_PER_HOUR, MS_PER_SECOND } from '../time.ts'

/**
 * Browser sessions for the sandbox's HTML pages. Signing in sets a cookie and the pages also
 * carry the session id in a hidden `session` field, so an HTTP client without a cookie jar can
 * drive every flow.
 */
export const SESSION_COOKIE = 'trello_sandbox_session'
export const SESSION_TTL_MS = 2 * MS_PER_HOUR

export function startSession(sb: TrelloSandbox, member: Member): { id: string; cookie: string } {
  const id = hex(20)
  sb.store.sessions.set(id, { id, idMember: member.id, expiresAt: sb.now() + SESSION_TTL_MS })
  return {
    id,
    cookie: `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_TTL_MS / MS_PER_SECOND}`,
  }
}

export function sessionMember(
  sb: TrelloSandbox,
  req: IncomingRequest,
  fromForm?: string,
): { id: string; member: Member } | undefined {
  const id = fromForm || cookieValue(req, SESSION_COOKIE)
  const session = id ? sb.store.sessions.get(id) : undefined
  if (!session || session.expiresAt <= sb.now()) return undefined
  const member = sb.store.members.get(session.idMember)
  return member ? { id: session.id, member } : undefined
}

/**
 * Signing out for "Use another account": forgets the session named by the form and the one in the
 * cookie (a browser may hold an older one), and answers the Set-Cookie that expires the cookie.
 */
export function endSession(sb: TrelloSandbox, req: IncomingRequest, fromForm?: string): string {
  for (const id of [fromForm, cookieValue(req, SESSION_COOKIE)]) if (id) sb.store.sessions.delete(id)
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`
}
