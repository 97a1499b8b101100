import { hex } from './ids.ts'
import {
  EXPIRATIONS,
  SCOPES,
  type App,
  type Expiration,
  type Member,
  type Scope,
  type Token,
} from './model.ts'
import type { TrelloSandbox } from './sandbox.ts'
import { MS_PER_DAY, MS_PER_HOUR } from './time.ts'

/** `expiration` values (sources: Trello authentication) and how long each lasts. */
export const EXPIRATION_MS: Record<Expiration, number | null> = {
  '1hour': MS_PER_HOUR,
  '1day': MS_PER_DAY,
  '30days': 30 * MS_PER_DAY,
  never: null,
}

/** Parses `read,write,account` (order free, duplicates ignored); undefined when invalid. */
export function parseScopes(
  raw: string | string[] | undefined,
  fallback: Scope[] = ['read'],
): Scope[] | undefined {
  if (raw === undefined || raw === '') return [...fallback]
  const parts = (Array.isArray(raw) ? raw : raw.split(',')).map((s) => s.trim()).filter(Boolean)
  if (parts.length === 0 || !parts.every((p): p is Scope => (SCOPES as readonly string[]).includes(p)))
    return undefined
  return SCOPES.filter((s) => parts.includes(s))
}

export function parseExpiration(raw: string | undefined, fallback: Expiration): Expiration | undefined {
  if (raw === undefined || raw === '') return fallback
  return (EXPIRATIONS as readonly string[]).includes(raw) ? (raw as Expiration) : undefined
}

/**
 * A user token: 64 lowercase hex characters, the classic form (newer real tokens start with
 * `ATTA`; the sandbox sticks to the 64-hex form). It is bound to the app key that asked for it.
 */
export function mintToken(
  sb: TrelloSandbox,
  input: {
    app: App
    member: Member
    scopes: Scope[]
    expiration: Expiration
    name?: string
    secret?: string
  },
): Token {
  const now = sb.now()
  const lifetime = EXPIRATION_MS[input.expiration]
  const token: Token = {
    id: sb.newId(),
    value: hex(32),
    key: input.app.key,
    idMember: input.member.id,
    scopes: [...input.scopes],
    expiration: input.expiration,
    name: input.name ?? input.app.name,
    createdAt: now,
    expiresAt: lifetime === null ? null : now + lifetime,
    secret: input.secret ?? '',
  }
  sb.store.tokens.set(token.value, token)
  return token
}

export function isExpired(token: Token, now: number): boolean {
  return token.expiresAt !== null && token.expiresAt <= now
}
