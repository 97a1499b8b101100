import type { parseArgs as ParseArgs } from 'node:util'
import { callService } from './remote.ts'
import { problemText } from './output.ts'

interface UserRow {
  id: string
  email: string
  plan: string
  role: string
  integrations: number
}

export const USERS_USAGE = `  users list [--json]                     every user, with plan, role and integration count (admins only)
  users create <email> [--plan free|pro|enterprise] [--role admin|member] [--json]
                                          add a user; prints their first API key and their
                                          invitation link (one-time, expiring), once
  users password-link <id|email> [--json] a new one-time link that sets their password: an
                                          invitation, or a reset once they have one (mailed too
                                          when SWITCHYARD_SMTP_URL is set)
  users set-plan <id|email> <plan> [--json]
  users set-role <id|email> <admin|member> [--json]
  users remove <id|email> --yes [--json]  disconnect their integrations, erase their credentials, keys and sessions
`

/** `switchyard users …`: the admin's user management, through the running service's REST API. */
export async function users(
  sub: string | undefined,
  args: string[],
  parseArgs: typeof ParseArgs,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      plan: { type: 'string' },
      role: { type: 'string' },
      yes: { type: 'boolean' },
    },
  })
  const json = values.json ?? false
  switch (sub) {
    case 'list': {
      const result = await callService('GET', '/v1/users')
      if (!result.ok) return failed(result.body, json)
      const rows = (result.body as { users: UserRow[] }).users
      if (json) return print(rows, true)
      const lines = rows.map(
        (u) =>
          `${u.email.padEnd(36)} ${u.plan.padEnd(10)} ${u.role.padEnd(6)} ${String(u.integrations).padStart(3)}  ${u.id}`,
      )
      process.stdout.write(
        [`${'EMAIL'.padEnd(36)} ${'PLAN'.padEnd(10)} ${'ROLE'.padEnd(6)} INT  ID`, ...lines].join('\n') +
          '\n',
      )
      return 0
    }
    case 'create': {
      const [email] = positionals
      if (!email)
        throw new Error(
          'users create needs an email, e.g. switchyard users create ada@example.com --plan pro',
        )
      const result = await callService('POST', '/v1/users', {
        email,
        ...(values.plan ? { plan: values.plan } : {}),
        ...(values.role ? { role: values.role } : {}),
      })
      if (!result.ok) return failed(result.body, json)
      const created = result.body as { user: UserRow; api_key: { key: string }; invitation: LinkRow }
      if (json) return print(created, true)
      process.stdout.write(
        `Created ${created.user.email} (${created.user.plan}, ${created.user.role}), id ${created.user.id}.\n` +
          `Their API key, shown this once; hand it over privately:\n${created.api_key.key}\n` +
          linkText(created.invitation),
      )
      return 0
    }
    case 'password-link': {
      const [ref] = positionals
      if (!ref) throw new Error('usage: switchyard users password-link <id|email>')
      const id = await resolveUser(ref)
      const result = await callService('POST', `/v1/users/${encodeURIComponent(id)}/password-link`)
      if (!result.ok) return failed(result.body, json)
      const link = result.body as LinkRow
      return json ? print(link, true) : print(linkText(link).trimEnd(), false)
    }
    case 'set-plan':
    case 'set-role': {
      const [ref, value] = positionals
      const what = sub === 'set-plan' ? 'plan' : 'role'
      if (!ref || !value) throw new Error(`usage: switchyard users ${sub} <id|email> <${what}>`)
      const id = await resolveUser(ref)
      const result = await callService('PATCH', `/v1/users/${encodeURIComponent(id)}`, { [what]: value })
      if (!result.ok) return failed(result.body, json)
      const user = result.body as UserRow
      return json ? print(user, true) : print(`${user.email} is now ${user.plan}, ${user.role}`, false)
    }
    case 'remove': {
      const [ref] = positionals
      if (!ref) throw new Error('usage: switchyard users remove <id|email> --yes')
      if (!values.yes)
        throw new Error(
          `removing ${ref} disconnects their integrations and erases their credentials, API keys and sessions; add --yes to go ahead`,
        )
      const id = await resolveUser(ref)
      const result = await callService('DELETE', `/v1/users/${encodeURIComponent(id)}`)
      if (!result.ok) return failed(result.body, json)
      const removed = result.body as {
        email: string
        integrations_disconnected: number
        revoked_at_platform: number
      }
      return json
        ? print(removed, true)
        : print(
            `Removed ${removed.email}: ${removed.integrations_disconnected} integration(s) disconnected and erased (${removed.revoked_at_platform} revoked at the platform)`,
            false,
          )
    }
    default:
      throw new Error('usage: switchyard users list|create|password-link|set-plan|set-role|remove …')
  }
}

interface LinkRow {
  purpose: 'invitation' | 'reset'
  url: string
  expires_at: string
  emailed: boolean
}

function linkText(link: LinkRow): string {
  const what = link.purpose === 'invitation' ? 'Their invitation link' : 'Their password reset link'
  return (
    `${what}, one use, until ${link.expires_at}${link.emailed ? ' (also sent to them by mail)' : '; hand it over privately'}:\n` +
    `${link.url}\n`
  )
}

/** An id is used as it is; an email is looked up in the list. */
async function resolveUser(ref: string): Promise<string> {
  if (!ref.includes('@')) return ref
  const result = await callService('GET', '/v1/users')
  if (!result.ok) throw new Error(problemText(result.body))
  const match = (result.body as { users: UserRow[] }).users.find((u) => u.email === ref.toLowerCase())
  if (!match) throw new Error(`no user with email ${ref}`)
  return match.id
}

function print(value: unknown, json: boolean): number {
  process.stdout.write((json ? JSON.stringify(value, null, 2) : String(value)) + '\n')
  return 0
}

/** A refusal: the problem as JSON with --json, else its words; exit 1 either way. */
function failed(body: unknown, json: boolean): number {
  if (json) process.stdout.write(JSON.stringify(body, null, 2) + '\n')
  else process.stderr.write(problemText(body) + '\n')
  return 1
}
