import { TICKET_PRIORITIES, TICKET_STATUSES, TICKET_TYPES } from '../model.ts'
import { MS_PER_DAY, MS_PER_HOUR, MS_PER_MINUTE, MS_PER_SECOND } from '../time.ts'

/**
 * Parser for the Zendesk search query language, the subset documented in docs/sandbox.md:
 * space-separated terms AND-ed together; `"quoted phrases"`; `property:value` and the
 * comparison operators `< > <= >=`; `-` negates a term; a trailing `*` makes a prefix match.
 * Property names the sandbox does not know are searched as free text (as Zendesk does for
 * text that merely contains a colon, such as URLs).
 */

export type Operator = ':' | '<' | '>' | '<=' | '>='

export const RESULT_TYPES = ['ticket', 'user', 'organization', 'group'] as const
export type ResultType = (typeof RESULT_TYPES)[number]

/** Inclusive start, exclusive end, in epoch ms. */
export interface TimeRange {
  start: number
  end: number
}

export type Term =
  | { kind: 'text'; negated: boolean; words: string[]; prefix: boolean; field: TextField | null }
  | { kind: 'result_type'; negated: boolean; value: ResultType }
  | { kind: 'ticket_type'; negated: boolean; value: string }
  | { kind: 'ordered'; negated: boolean; field: 'status' | 'priority'; op: Operator; value: string }
  | { kind: 'person'; negated: boolean; field: 'assignee' | 'requester' | 'submitter'; value: string }
  | { kind: 'organization'; negated: boolean; value: string }
  | { kind: 'tags'; negated: boolean; values: string[] }
  | { kind: 'time'; negated: boolean; field: 'created' | 'updated'; op: Operator; range: TimeRange }
  | { kind: 'exact'; negated: boolean; field: 'external_id' | 'role' | 'email'; value: string }

export type TextField = 'subject' | 'description' | 'comment'

export type ParseResult = { ok: true; terms: Term[] } | { ok: false; problem: string }

class QueryError extends Error {}

/** Lower-cased words of a text; punctuation separates words ("dark-mode" → dark, mode). */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []
}

/** Splits on unquoted whitespace; quotes may open mid-token (`subject:"two words"`). */
export function tokenize(query: string): string[] {
  const tokens: string[] = []
  let current = ''
  let quoted = false
  for (const char of query) {
    if (char === '"') quoted = !quoted
    if (!quoted && /\s/.test(char)) {
      if (current) tokens.push(current)
      current = ''
      continue
    }
    current += char
  }
  if (quoted) throw new QueryError('unbalanced quotation marks')
  if (current) tokens.push(current)
  return tokens
}

const unquote = (value: string) =>
  value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value

const RELATIVE_UNITS_MS: Record<string, number> = {
  minute: MS_PER_MINUTE,
  minutes: MS_PER_MINUTE,
  hour: MS_PER_HOUR,
  hours: MS_PER_HOUR,
  day: MS_PER_DAY,
  days: MS_PER_DAY,
  week: 7 * MS_PER_DAY,
  weeks: 7 * MS_PER_DAY,
  month: 30 * MS_PER_DAY,
  months: 30 * MS_PER_DAY,
  year: 365 * MS_PER_DAY,
  years: 365 * MS_PER_DAY,
}

/**
 * `YYYY-MM-DD` is the whole UTC day (the account time zone is UTC in the sandbox); an ISO
 * datetime is that second; `4hours`, `2days`… is the instant that long before now.
 */
export function parseTime(value: string, now: number): TimeRange {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const start = Date.parse(`${value}T00:00:00Z`)
    if (!Number.isNaN(start)) return { start, end: start + MS_PER_DAY }
  }
  if (/^\d{4}-\d{2}-\d{2}T/i.test(value)) {
    const start = Date.parse(value.toUpperCase())
    if (!Number.isNaN(start)) return { start, end: start + MS_PER_SECOND }
  }
  const relative = /^(\d+)([a-z]+)$/i.exec(value)
  const unit = relative ? RELATIVE_UNITS_MS[(relative[2] as string).toLowerCase()] : undefined
  if (relative && unit !== undefined) {
    const instant = now - Number(relative[1]) * unit
    return { start: instant, end: instant }
  }
  throw new QueryError(
    `"${value}" is not a date (use YYYY-MM-DD, an ISO 8601 datetime, or a relative time such as 4hours)`,
  )
}

const PROPERTY = /^([a-z_]+)(<=|>=|:|<|>)(.*)$/

/** Properties that accept only `:`. */
const EQUALITY_ONLY = new Set([
  'type',
  'ticket_type',
  'assignee',
  'requester',
  'submitter',
  'organization',
  'tags',
  'tag',
  'subject',
  'description',
  'comment',
  'external_id',
  'role',
  'email',
])
const KNOWN = new Set([...EQUALITY_ONLY, 'status', 'priority', 'created', 'updated'])

function textTerm(raw: string, negated: boolean, field: TextField | null): Term {
  const phrase = raw.startsWith('"')
  const text = unquote(raw)
  const prefix = !phrase && text.endsWith('*')
  const parts = words(prefix ? text.slice(0, -1) : text)
  if (parts.length === 0) throw new QueryError(`"${raw}" has nothing to search for`)
  return { kind: 'text', negated, words: parts, prefix, field }
}

function propertyTerm(key: string, op: Operator, rawValue: string, negated: boolean, now: number): Term {
  const value = unquote(rawValue)
  if (value === '') throw new QueryError(`${key}${op} needs a value`)
  if (op !== ':' && EQUALITY_ONLY.has(key)) throw new QueryError(`${key} does not support the ${op} operator`)
  const lower = value.toLowerCase()
  switch (key) {
    case 'type':
      // `type:` is overloaded: a result type (ticket, user, organization, group) or, for any
      // other value, a ticket type (incident, problem, question, task), which implies tickets.
      if ((RESULT_TYPES as readonly string[]).includes(lower))
        return { kind: 'result_type', negated, value: lower as ResultType }
      if ((TICKET_TYPES as readonly string[]).includes(lower))
        return { kind: 'ticket_type', negated, value: lower }
      throw new QueryError(`unknown type "${value}"`)
    case 'ticket_type':
      if ((TICKET_TYPES as readonly string[]).includes(lower) || lower === 'none')
        return { kind: 'ticket_type', negated, value: lower }
      throw new QueryError(`unknown ticket_type "${value}"`)
    case 'status':
    case 'priority': {
      const allowed: readonly string[] = key === 'status' ? TICKET_STATUSES : TICKET_PRIORITIES
      const valid = allowed.includes(lower) || (key === 'priority' && op === ':' && lower === 'none')
      if (!valid) throw new QueryError(`${key} "${value}" is not one of ${allowed.join(', ')}`)
      return { kind: 'ordered', negated, field: key, op, value: lower }
    }
    case 'assignee':
    case 'requester':
    case 'submitter':
      return { kind: 'person', negated, field: key, value: lower }
    case 'organization':
      return { kind: 'organization', negated, value: lower }
    case 'tags':
    case 'tag':
      // `tags:"a b"` matches either tag, as in Zendesk.
      return { kind: 'tags', negated, values: lower.split(/\s+/).filter(Boolean) }
    case 'created':
    case 'updated':
      return { kind: 'time', negated, field: key, op, range: parseTime(value, now) }
    case 'subject':
    case 'description':
    case 'comment':
      return textTerm(rawValue, negated, key)
    case 'external_id':
    case 'role':
    case 'email':
      return { kind: 'exact', negated, field: key, value: key === 'external_id' ? value : lower }
    default:
      throw new QueryError(`unknown property ${key}`)
  }
}

export function parseQuery(query: string, now: number): ParseResult {
  try {
    const terms = tokenize(query.trim()).map((token) => {
      const negated = token.length > 1 && token.startsWith('-')
      const body = negated ? token.slice(1) : token
      const property = PROPERTY.exec(body)
      if (property && KNOWN.has(property[1] as string)) {
        return propertyTerm(
          property[1] as string,
          property[2] as Operator,
          property[3] as string,
          negated,
          now,
        )
      }
      return textTerm(body, negated, null)
    })
    if (terms.length === 0) return { ok: false, problem: 'query is empty' }
    return { ok: true, terms }
  } catch (error) {
    if (error instanceof QueryError) return { ok: false, problem: error.message }
    throw error
  }
}
