import type { FastifyReply, FastifyRequest } from 'fastify'
import type { User } from '../../core/access/users.ts'
import { AppError } from '../../core/errors.ts'
import type { Services } from '../../services.ts'

/** Who is calling /mcp, and the name rate budgets share fairly by (as REST's agentId). */
export interface McpCaller {
  user: User
  agentId: string
  /** Set for an external agent calling with its run token: its tool calls land on this run's timeline. */
  runId?: string
}

/** Turns a bearer token into a caller, or says it is not one of its kind. */
export type BearerResolver = (token: string) => Promise<McpCaller | undefined>

/**
 * The kinds of bearer token /mcp accepts, tried in turn: an API key, exactly as REST takes it, and a
 * run's token, so an external agent's calls land on its run's timeline.
 */
export function bearerResolvers(services: Services): BearerResolver[] {
  const apiKey: BearerResolver = async (token) => {
    const caller = await services.users.authenticateKey(token)
    return caller && { user: caller.user, agentId: `key:${caller.keyId}` }
  }
  const runToken: BearerResolver = async (token) => {
    if (!token.startsWith('syr_')) return undefined
    const run = await services.runs.byToken(token)
    const user = run && (await services.users.get(run.userId))
    return user ? { user, agentId: `run:${run.runId}`, runId: run.runId } : undefined
  }
  return [apiKey, runToken]
}

/** Query parameters that look like someone put a credential in the URL. */
const CREDENTIAL_PARAM = /token|key|auth|secret|password|bearer|session/i

/**
 * Only `Authorization: Bearer`: never a token in the query string (MCP's authorization rules forbid
 * it, and URLs end up in logs, proxies and browser history), and never the web app's session cookie
 * (a browser page must not be able to drive tools with a signed-in person's cookie).
 */
export async function authenticateMcp(
  request: FastifyRequest,
  reply: FastifyReply,
  resolvers: BearerResolver[],
): Promise<McpCaller> {
  // Most requests have no query string at all: parsing the URL is left to those that do.
  const query = request.url.includes('?')
    ? new URL(request.url, 'http://switchyard.invalid').searchParams
    : []
  for (const [name, value] of query) {
    if (CREDENTIAL_PARAM.test(name) || /^sy_/.test(value)) {
      throw new AppError(
        'invalid_input',
        'never put a credential in the URL; send it as "Authorization: Bearer <API key>". If that was a real key, delete it and create a new one: URLs are logged.',
        {
          errors: [
            { field: `query.${name}`, message: 'credentials are only accepted in the Authorization header' },
          ],
        },
      )
    }
  }
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')
  if (match) {
    for (const resolve of resolvers) {
      const caller = await resolve(match[1])
      if (caller) return caller
    }
  }
  // RFC 6750: a bearer-protected resource says so; no resource metadata, as there is no OAuth server here.
  reply.header(
    'www-authenticate',
    match ? 'Bearer realm="switchyard", error="invalid_token"' : 'Bearer realm="switchyard"',
  )
  throw new AppError(
    'unauthenticated',
    match ? 'the API key is not valid' : 'send an API key as "Authorization: Bearer sy_…"',
  )
}
