import { sql, type SqlBool } from 'kysely'
import { z } from 'zod'
import { invalidInput } from './errors.ts'
import { sha256 } from './ids.ts'

/**
 * One way to page every list (runs, agents, integrations, subscriptions): keyset paging on
 * `(created_at, id)` with an opaque cursor, so a page costs the same however long the list is and rows
 * added or removed between pages neither repeat nor push others out (issue 22, §7).
 */
export const DEFAULT_PAGE = 50
export const MAX_PAGE = 200
export const MAX_SEARCH = 200

const limit = z.coerce
  .number({ error: 'give a number' })
  .int('give a whole number')
  .min(1, 'at least 1')
  .max(MAX_PAGE, `at most ${MAX_PAGE}`)
  .default(DEFAULT_PAGE)

/** `limit`, `cursor` and `q` as a query string gives them (one value each: a repeated one is refused). */
export const PageQuery = z.object({
  limit,
  cursor: z.string({ error: 'give one cursor' }).max(400, 'at most 400 characters').optional(),
  q: z
    .string({ error: 'give one search text' })
    .max(MAX_SEARCH, `at most ${MAX_SEARCH} characters`)
    .optional(),
})
export type PageQuery = z.output<typeof PageQuery>

export const LimitField = limit
export const CursorField = PageQuery.shape.cursor

/** A position in a list: the row's creation time in the database's microseconds, and its id. */
export interface Position {
  micros: string
  id: string
}

/**
 * The cursor names the row the page ended on, and a check over it and the list it belongs to (the
 * caller and which list): a cursor edited by hand, cut short, or taken from another user or another
 * list is refused by name rather than silently read as some other position. The check is not a
 * secret: whatever a cursor says, a list only ever reads its caller's own rows.
 */
export function encodeCursor(position: Position, scope: string): string {
  return Buffer.from(JSON.stringify([position.micros, position.id, checkOf(position, scope)])).toString(
    'base64url',
  )
}

/**
 * The position a cursor names. A cursor from before the check (`[time, id]`, runs only) still reads
 * where `legacy` is allowed, its time as microseconds or, older still, an ISO time to the millisecond.
 */
export function decodeCursor(cursor: string, scope: string, opts: { legacy?: boolean } = {}): Position {
  const refuse = () =>
    invalidInput([
      { field: 'cursor', message: 'give a next_cursor that a previous page of this list returned' },
    ])
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString())
  } catch {
    throw refuse()
  }
  if (!Array.isArray(parsed) || !parsed.every((p) => typeof p === 'string')) throw refuse()
  const [at, id, check] = parsed as string[]
  if (at === undefined || id === undefined || !id || id.length > 100) throw refuse()
  if (parsed.length === 3) {
    if (!/^\d{1,17}$/.test(at)) throw refuse()
    if (check !== checkOf({ micros: at, id }, scope)) throw refuse()
    return { micros: at, id }
  }
  if (parsed.length !== 2 || !opts.legacy) throw refuse()
  if (/^\d{1,17}$/.test(at)) return { micros: at, id }
  const date = new Date(at)
  if (Number.isNaN(date.getTime()) || date.getTime() < 0) throw refuse()
  return { micros: String(date.getTime() * 1000), id }
}

function checkOf(position: Position, scope: string): string {
  return sha256(`${scope}\n${position.micros}\n${position.id}`).slice(0, 16)
}

/** The column a cursor's time is read from, in microseconds as text (a JavaScript Date has only milliseconds). */
export function createdMicros(table: string) {
  return sql<string>`(extract(epoch from ${sql.ref(`${table}.created_at`)}) * 1000000)::bigint::text`
}

/**
 * Rows after `position` in the order `created_at, id` (ascending or descending). The microseconds are
 * compared as the database keeps them: a page boundary inside one millisecond would otherwise skip
 * the rows of that millisecond after it.
 */
export function afterPosition(table: string, position: Position, direction: 'asc' | 'desc') {
  const at = sql<Date>`timestamptz 'epoch' + ${position.micros}::bigint * interval '1 microsecond'`
  const op = sql.raw(direction === 'desc' ? '<' : '>')
  // A row comparison: PostgreSQL reads it as one range over an index on (user_id, created_at, id).
  return sql<SqlBool>`(${sql.ref(`${table}.created_at`)}, ${sql.ref(`${table}.id`)}) ${op} (${at}, ${position.id})`
}

/**
 * Words of a search, as the web app's search boxes take them: split on spaces, each of which must be
 * found, ignoring case, somewhere in the row's name fields. Returned as `ILIKE` patterns with `%`, `_`
 * and `\` taken literally.
 */
export function searchPatterns(q: string | undefined): string[] {
  if (!q) return []
  return q
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 10)
    .map((w) => `%${w.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)
}

/** A page of rows and the cursor of the next page (null on the last). */
export function pageOf<R extends { created_us: string; id: string }>(
  rows: R[],
  limitN: number,
  scope: string,
): { page: R[]; next_cursor: string | null } {
  const page = rows.slice(0, limitN)
  const last = page.at(-1)
  return {
    page,
    next_cursor:
      rows.length > limitN && last ? encodeCursor({ micros: last.created_us, id: last.id }, scope) : null,
  }
}
