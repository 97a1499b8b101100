import { checkPassword, createMember } from '../accounts.ts'
import {
  htmlResponse,
  isRecord,
  parseBody,
  textResponse,
  type IncomingRequest,
  type SandboxResponse,
} from '../http.ts'
import type { App, Expiration, Member, Scope } from '../model.ts'
import type { TrelloSandbox } from '../sandbox.ts'
import { consentPage, signInPage, type HiddenFields } from './pages.ts'
import { sandboxAccounts } from './sandbox-accounts.ts'
import { endSession, sessionMember, startSession } from './session.ts'

/**
 * The sign-in → allow/deny sequence shared by `/1/authorize` and `/1/OAuthAuthorizeToken`.
 * GET shows the sign-in page (or the consent page with a live session). The forms POST back
 * to the same URL with a `step`: `signin` (email or username + password), `signup` (fullName,
 * username, email, password), `decide` (decision=allow|deny) or `signout` ("Use another
 * account": ends the session and shows the sign-in page for the same grant, so another member
 * can sign in and decide). The grant's own arguments travel as hidden fields and are checked
 * again on every step.
 */
export interface Grant {
  app: App
  /** Shown on the consent page: the `name` argument, else the app's name. */
  appName: string
  scopes: Scope[]
  expiration: Expiration
  /** The arguments to carry through the forms. */
  fields: HiddenFields
}

export type GrantCheck = { ok: true; grant: Grant } | { ok: false; response: SandboxResponse }

export interface GrantFlow {
  /** Absolute URL the forms post to. */
  action: string
  resolve(values: Record<string, string>): GrantCheck
  complete(grant: Grant, member: Member, decision: 'allow' | 'deny'): SandboxResponse
}

function strings(values: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(values)) if (typeof value === 'string') out[name] = value
  return out
}

function signIn(
  sb: TrelloSandbox,
  flow: GrantFlow,
  grant: Grant,
  extra: { error?: string; email?: string; signupError?: string } = {},
  headers: Record<string, string> = {},
): SandboxResponse {
  return htmlResponse(
    200,
    signInPage({
      heading: `Log in to let ${grant.appName} use your account`,
      intro: `${grant.appName} wants to connect to your Trello account.`,
      action: flow.action,
      fields: grant.fields,
      accounts: sandboxAccounts(sb),
      error: extra.error,
      email: extra.email,
      signup: { error: extra.signupError },
    }),
    headers,
  )
}

function consent(
  flow: GrantFlow,
  grant: Grant,
  member: Member,
  sessionId: string,
  headers: Record<string, string> = {},
): SandboxResponse {
  return htmlResponse(
    200,
    consentPage({
      appName: grant.appName,
      memberName: `${member.fullName} (@${member.username})`,
      scopes: grant.scopes,
      expiration: grant.expiration,
      action: flow.action,
      fields: { ...grant.fields, session: sessionId },
    }),
    headers,
  )
}

export function showGrant(sb: TrelloSandbox, req: IncomingRequest, flow: GrantFlow): SandboxResponse {
  const check = flow.resolve(strings(Object.fromEntries(req.query)))
  if (!check.ok) return check.response
  const session = sessionMember(sb, req)
  return session ? consent(flow, check.grant, session.member, session.id) : signIn(sb, flow, check.grant)
}

export function postGrant(sb: TrelloSandbox, req: IncomingRequest, flow: GrantFlow): SandboxResponse {
  const parsed = parseBody(req)
  const form = parsed.ok && isRecord(parsed.value) ? strings(parsed.value) : {}
  const { step, session: sessionField, decision, email = '', password = '' } = form
  const carried = { ...Object.fromEntries(req.query), ...form }
  for (const name of ['step', 'session', 'decision', 'email', 'password', 'fullName', 'username'])
    delete carried[name]
  const check = flow.resolve(carried)
  if (!check.ok) return check.response
  const { grant } = check
  switch (step) {
    case 'signin': {
      const member = checkPassword(sb, email, password)
      if (!member)
        return signIn(sb, flow, grant, { error: 'Incorrect email address and/or password.', email })
      const session = startSession(sb, member)
      return consent(flow, grant, member, session.id, { 'set-cookie': session.cookie })
    }
    case 'signup': {
      const created = createMember(sb, {
        fullName: form.fullName ?? '',
        username: form.username ?? '',
        email,
        password,
      })
      if (!created.ok) return signIn(sb, flow, grant, { signupError: created.problem })
      const session = startSession(sb, created.value)
      return consent(flow, grant, created.value, session.id, { 'set-cookie': session.cookie })
    }
    case 'decide': {
      const session = sessionMember(sb, req, sessionField)
      if (!session) return signIn(sb, flow, grant, { error: 'Please log in again.' })
      if (decision !== 'allow' && decision !== 'deny') return textResponse(400, 'invalid value for decision')
      return flow.complete(grant, session.member, decision)
    }
    case 'signout':
      return signIn(sb, flow, grant, {}, { 'set-cookie': endSession(sb, req, sessionField) })
    default:
      return textResponse(400, 'invalid value for step')
  }
}
