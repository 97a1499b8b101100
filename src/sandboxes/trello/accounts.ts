import { hex } from './ids.ts'
import type { App, Member } from './model.ts'
import { initials } from './presenters.ts'
import type { TrelloSandbox } from './sandbox.ts'

/** Creating members and apps, shared by the sign-up form, the app-key page and the control API. */

/** Trello usernames: lower-case letters, digits and underscores, at least 3 characters. */
export const USERNAME = /^[a-z0-9_]{3,100}$/
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/
export const MIN_PASSWORD_LENGTH = 6

export type Created<T> =
  { ok: true; value: T } | { ok: false; problem: string; field: string; conflict?: boolean }

export function createMember(
  sb: TrelloSandbox,
  input: { username: string; fullName: string; email: string; password: string | null },
): Created<Member> {
  const username = input.username.trim().toLowerCase()
  const email = input.email.trim().toLowerCase()
  const fullName = input.fullName.trim()
  if (!fullName) return { ok: false, field: 'fullName', problem: 'Full name is required.' }
  if (!USERNAME.test(username))
    return {
      ok: false,
      field: 'username',
      problem: 'Username must be at least 3 lower-case letters, digits or underscores.',
    }
  if (!EMAIL.test(email)) return { ok: false, field: 'email', problem: 'Email address is not valid.' }
  if (input.password !== null && input.password.length < MIN_PASSWORD_LENGTH) {
    return {
      ok: false,
      field: 'password',
      problem: `Password must be at least ${MIN_PASSWORD_LENGTH} characters.`,
    }
  }
  if (sb.store.memberByUsername(username))
    return { ok: false, field: 'username', problem: 'That username is already taken.', conflict: true }
  if (sb.store.memberByEmail(email))
    return {
      ok: false,
      field: 'email',
      problem: 'An account with that email already exists.',
      conflict: true,
    }
  const member: Member = {
    id: sb.newId(),
    username,
    fullName,
    initials: initials(fullName),
    email,
    password: input.password,
    createdAt: sb.now(),
  }
  sb.store.members.set(member.id, member)
  return { ok: true, value: member }
}

/** The sandbox's default allowed origins for a new app: local development servers. */
export const LOCAL_ORIGINS = ['http://localhost:*', 'http://127.0.0.1:*']

export function createApp(
  sb: TrelloSandbox,
  input: { name: string; owner: Member | null; allowedOrigins?: string[]; key?: string; secret?: string },
): App {
  const app: App = {
    id: sb.newId(),
    name: input.name,
    key: input.key ?? hex(16),
    secret: input.secret ?? hex(32),
    idMemberOwner: input.owner?.id ?? null,
    allowedOrigins: input.allowedOrigins ?? [...LOCAL_ORIGINS],
    createdAt: sb.now(),
  }
  sb.store.apps.set(app.key, app)
  return app
}

/** Sign-in accepts an email or a username. */
export function checkPassword(sb: TrelloSandbox, login: string, password: string): Member | undefined {
  const member = login.includes('@') ? sb.store.memberByEmail(login) : sb.store.memberByUsername(login.trim())
  return member && member.password !== null && member.password === password ? member : undefined
}
