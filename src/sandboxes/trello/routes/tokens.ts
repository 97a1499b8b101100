import type { ApiContext } from '../context.ts'
import { fail, invalidToken, unauthorizedPermission, unauthorizedToken } from '../errors.ts'
import { pickFields } from '../fields.ts'
import { jsonResponse } from '../http.ts'
import { memberFor } from '../lookup.ts'
import type { Token } from '../model.ts'
import { memberJson, webhookJson } from '../presenters.ts'
import type { ApiRoute } from '../router.ts'
import { iso, isoOrNull } from '../time.ts'

/**
 * `GET /1/tokens/{token}` (what a token may do), `GET /1/tokens/{token}/member`, and
 * `DELETE /1/tokens/{token}` (revoke; its webhooks go with it, sources: Trello actions and webhooks). Only the calling token.
 */

function ownToken(ctx: ApiContext): Token {
  const token = ctx.actor.token ?? fail(invalidToken())
  if (ctx.path.token !== token.value) return fail(unauthorizedToken())
  return token
}

export function tokenJson(token: Token): Record<string, unknown> {
  const write = token.scopes.includes('write')
  const read = token.scopes.includes('read')
  return {
    id: token.id,
    identifier: token.name,
    idMember: token.idMember,
    dateCreated: iso(token.createdAt),
    dateExpires: isoOrNull(token.expiresAt),
    permissions: [
      { idModel: '*', modelType: 'Board', read, write },
      { idModel: '*', modelType: 'Organization', read, write },
      { idModel: token.idMember, modelType: 'Member', read, write: token.scopes.includes('account') },
    ],
  }
}

/**
 * `GET /1/members/{id}/tokens` with `webhooks=true` (sources: Trello actions and webhooks, T-JS
 * `GetMemberTokens`): the calling member's own tokens, each with its webhooks when asked. It lets a
 * client that never sees its token's value find that token's webhooks. Another member's tokens are
 * refused [UNV wording]. Tokens past their expiry are left out.
 */
function memberTokens(ctx: ApiContext) {
  const member = memberFor(ctx, ctx.path.id as string)
  if (member.id !== ctx.actor.member.id) return fail(unauthorizedPermission())
  const withHooks = ctx.params.bool('webhooks') === true
  const now = ctx.now
  const tokens = [...ctx.store.tokens.values()].filter(
    (t) => t.idMember === member.id && (t.expiresAt === null || t.expiresAt > now),
  )
  return jsonResponse(
    200,
    tokens.map((token) => {
      const json = tokenJson(token)
      if (withHooks) json.webhooks = ctx.store.webhooksOfToken(token.value).map(webhookJson)
      return json
    }),
  )
}

export const tokenRoutes: ApiRoute[] = [
  { method: 'GET', path: '/1/members/{id}/tokens', scope: 'read', handle: memberTokens },
  {
    method: 'GET',
    path: '/1/tokens/{token}',
    scope: 'read',
    handle: (ctx) => jsonResponse(200, pickFields(tokenJson(ownToken(ctx)), ctx.params.string('fields'))),
  },
  {
    method: 'GET',
    path: '/1/tokens/{token}/member',
    scope: 'read',
    handle: (ctx) => {
      ownToken(ctx)
      const json = memberJson(ctx.actor.member, ctx.store, {
        idMember: ctx.actor.member.id,
        account: ctx.actor.scopes.has('account'),
      })
      return jsonResponse(200, pickFields(json, ctx.params.string('fields')))
    },
  },
  {
    method: 'DELETE',
    path: '/1/tokens/{token}',
    scope: 'read',
    handle: (ctx) => {
      ctx.store.revokeToken(ownToken(ctx).value)
      return jsonResponse(200, { _value: null })
    },
  },
]
