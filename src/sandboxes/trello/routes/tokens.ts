import type { ApiContext } from '../context.ts'
import { fail, invalidToken, unauthorizedToken } from '../errors.ts'
import { pickFields } from '../fields.ts'
import { jsonResponse } from '../http.ts'
import type { Token } from '../model.ts'
import { memberJson } from '../presenters.ts'
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

function tokenJson(token: Token): Record<string, unknown> {
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

export const tokenRoutes: ApiRoute[] = [
  { method: 'GET', path: '/1/tokens/{token}', scope: 'read', handle: (ctx) => jsonResponse(200, pickFields(tokenJson(ownToken(ctx)), ctx.params.string('fields'))) },
  {
    method: 'GET',
    path: '/1/tokens/{token}/member',
    scope: 'read',
    handle: (ctx) => {
      ownToken(ctx)
      const json = memberJson(ctx.actor.member, ctx.store, { idMember: ctx.actor.member.id, account: ctx.actor.scopes.has('account') })
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
