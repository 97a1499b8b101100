import type { z } from 'zod'

/**
 * Zod's issue kinds as plain sentences that follow the field's name ("input.method must be one of
 * GET, POST, PUT or DELETE"). Given to every parse as its error map, so a message written on the
 * schema itself (a ticket id, a Trello list id, an ISO date) still wins: Zod prefers the schema's
 * own message to the one of the parse call (docs/errors.md, "Field errors").
 */
export function humanIssue(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return invalidType(issue.expected, issue.input)
    case 'too_small':
      return bound(issue.origin, 'at least', 'more than', issue.minimum, issue.inclusive, issue.exact)
    case 'too_big':
      return bound(issue.origin, 'at most', 'less than', issue.maximum, issue.inclusive, issue.exact)
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${quoted(issue.values[0])}`
        : `must be one of ${oneOf(issue.values.map(quoted))}`
    case 'invalid_format':
      return format(issue.format)
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`
    case 'invalid_union': {
      const options =
        'options' in issue && Array.isArray(issue.options) ? (issue.options as unknown[]) : undefined
      // The issue sits on the discriminator itself (`auth.method`).
      if (issue.discriminator)
        return options?.length
          ? `must be one of ${oneOf(options.map(quoted))}`
          : 'is not one of the accepted kinds'
      return 'does not match any of the accepted forms'
    }
    case 'invalid_key':
      return 'has a name that is not allowed'
    case 'invalid_element':
      return 'has a value that is not allowed'
    case 'unrecognized_keys':
      return issue.keys.length === 1
        ? `has an unknown field ${issue.keys[0]}`
        : `has unknown fields ${oneOf(issue.keys)}`
    case 'custom':
      return undefined
    default:
      return undefined
  }
}

const KINDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  date: 'a date',
  null: 'null',
}

function invalidType(expected: string, input: unknown): string {
  if (input === undefined) return 'is required'
  if (expected === 'record')
    return Array.isArray(input)
      ? 'must be an object of names to values, not a list'
      : 'must be an object of names to values'
  if (expected === 'object' && Array.isArray(input)) return 'must be an object, not a list'
  if (expected === 'number' && typeof input === 'number') return 'must be a finite number'
  return `must be ${KINDS[expected] ?? expected}`
}

const UNITS: Record<string, [string, string]> = {
  string: ['character', 'characters'],
  array: ['item', 'items'],
  set: ['item', 'items'],
  file: ['byte', 'bytes'],
}

function bound(
  origin: string,
  inclusiveWord: string,
  exclusiveWord: string,
  limit: number | bigint,
  inclusive = true,
  exact = false,
): string {
  const n = Number(limit)
  if (origin === 'string' && inclusiveWord === 'at least' && n === 1 && inclusive && !exact)
    return 'is required'
  if (origin === 'array' && inclusiveWord === 'at least' && n === 1 && inclusive && !exact)
    return 'must have at least one item'
  const units = UNITS[origin]
  if (origin === 'date')
    return `must be ${inclusive ? `on or ${inclusiveWord === 'at least' ? 'after' : 'before'}` : inclusiveWord === 'at least' ? 'after' : 'before'} ${new Date(n).toISOString()}`
  if (!units) return `must be ${exact ? '' : `${inclusive ? inclusiveWord : exclusiveWord} `}${String(limit)}`
  const unit = n === 1 ? units[0] : units[1]
  const verb = origin === 'string' ? 'be' : 'have'
  return `must ${verb} ${exact ? 'exactly' : inclusive ? inclusiveWord : exclusiveWord} ${String(limit)} ${unit}`
}

const FORMATS: Record<string, string> = {
  email: 'must be an email address',
  url: 'must be a URL such as https://example.com',
  uuid: 'must be a UUID',
  guid: 'must be a UUID',
  datetime: 'must be an ISO 8601 date and time, such as 2026-01-31T09:00:00Z',
  date: 'must be an ISO 8601 date, such as 2026-01-31',
  time: 'must be a time such as 09:00:00',
  duration: 'must be an ISO 8601 duration, such as PT1H',
  ipv4: 'must be an IPv4 address',
  ipv6: 'must be an IPv6 address',
  base64: 'must be base64 text',
  regex: 'is not in the expected form',
}

function format(name: string): string {
  return FORMATS[name] ?? `must be a valid ${name}`
}

function quoted(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value))
}

/** "a", "a or b", "a, b or c". */
function oneOf(items: readonly string[]): string {
  return items.length <= 1
    ? (items[0] ?? '')
    : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`
}
