import type { Account, Organization, Ticket, User } from '../model.ts'
import { priorityRank, statusRank } from '../ticket-order.ts'
import { words, type Operator, type ResultType, type Term, type TextField, type TimeRange } from './parser.ts'

/** Evaluates parsed search terms against the records of one account. */

export type Candidate =
  | { type: 'ticket'; record: Ticket }
  | { type: 'user'; record: User }
  | { type: 'organization'; record: Organization }

export interface MatchContext {
  account: Account
  /** The caller, for `assignee:me` / `requester:me`. */
  me: User
}

/** Result types the query allows: explicit `type:` terms win; any ticket-only term implies tickets. */
export function allowedResultTypes(terms: Term[]): Set<ResultType> {
  const wanted = terms
    .filter((t) => t.kind === 'result_type' && !t.negated)
    .map((t) => (t as { value: ResultType }).value)
  const excluded = new Set(
    terms.filter((t) => t.kind === 'result_type' && t.negated).map((t) => (t as { value: ResultType }).value),
  )
  const ticketOnly = terms.some(
    (t) =>
      !t.negated &&
      (t.kind === 'ticket_type' ||
        t.kind === 'ordered' ||
        t.kind === 'person' ||
        (t.kind === 'text' && t.field !== null)),
  )
  let allowed: ResultType[] =
    wanted.length > 0 ? wanted : ticketOnly ? ['ticket'] : ['ticket', 'user', 'organization', 'group']
  // Several positive `type:` terms are AND-ed, so two different ones match nothing.
  if (new Set(wanted).size > 1) allowed = []
  return new Set(allowed.filter((t) => !excluded.has(t)))
}

function containsWords(haystack: string[], needle: string[], prefix: boolean): boolean {
  if (needle.length === 0) return false
  for (let i = 0; i + needle.length <= haystack.length; i++) {
    let all = true
    for (let j = 0; j < needle.length; j++) {
      const hay = haystack[i + j] as string
      const want = needle[j] as string
      const last = j === needle.length - 1
      if (!(hay === want || (prefix && last && hay.startsWith(want)))) {
        all = false
        break
      }
    }
    if (all) return true
  }
  return false
}

function ticketTexts(ctx: MatchContext, ticket: Ticket, field: TextField | null): string[] {
  const comments = (ctx.account.comments.get(ticket.id) ?? []).map((c) => c.plainBody)
  if (field === 'subject') return [ticket.subject ?? '']
  if (field === 'description') return [ticket.description]
  if (field === 'comment') return comments
  return [ticket.subject ?? '', ticket.description, ...comments]
}

function candidateTexts(ctx: MatchContext, candidate: Candidate, field: TextField | null): string[] {
  switch (candidate.type) {
    case 'ticket':
      return ticketTexts(ctx, candidate.record, field)
    case 'user':
      return field ? [] : [candidate.record.name, candidate.record.email, candidate.record.notes]
    case 'organization':
      return field ? [] : [candidate.record.name, ...candidate.record.domainNames, candidate.record.notes]
  }
}

function compare(op: Operator, actual: number, wanted: number): boolean {
  switch (op) {
    case ':':
      return actual === wanted
    case '<':
      return actual < wanted
    case '>':
      return actual > wanted
    case '<=':
      return actual <= wanted
    case '>=':
      return actual >= wanted
  }
}

function inRange(op: Operator, at: number, range: TimeRange): boolean {
  switch (op) {
    case ':':
      return at >= range.start && at < range.end
    case '>':
      return at >= range.end
    case '>=':
      return at >= range.start
    case '<':
      return at < range.start
    case '<=':
      return at < range.end
  }
}

/** `me`, `none`, an id, an email, or a name (case-insensitive). undefined: nobody matches. */
function resolvePerson(ctx: MatchContext, value: string): number | null | undefined {
  if (value === 'me') return ctx.me.id
  if (value === 'none') return null
  if (/^\d+$/.test(value)) return Number(value)
  for (const user of ctx.account.users.values()) {
    if (user.email === value || user.name.toLowerCase() === value) return user.id
  }
  return undefined
}

function resolveOrganization(ctx: MatchContext, value: string): number | null | undefined {
  if (value === 'none') return null
  if (/^\d+$/.test(value)) return Number(value)
  for (const org of ctx.account.organizations.values()) if (org.name.toLowerCase() === value) return org.id
  return undefined
}

/** Whether the term holds, ignoring negation; null when the property does not apply to this record. */
function holds(ctx: MatchContext, term: Term, candidate: Candidate): boolean | null {
  if (term.kind === 'text') {
    return candidateTexts(ctx, candidate, term.field).some((text) =>
      containsWords(words(text), term.words, term.prefix),
    )
  }
  if (term.kind === 'result_type') return candidate.type === term.value
  if (candidate.type === 'user') {
    const user = candidate.record
    if (term.kind === 'exact' && term.field === 'role') return user.role === term.value
    if (term.kind === 'exact' && term.field === 'email') return user.email === term.value
    if (term.kind === 'exact' && term.field === 'external_id') return user.externalId === term.value
    if (term.kind === 'organization') return user.organizationId === resolveOrganization(ctx, term.value)
    if (term.kind === 'time')
      return inRange(term.op, term.field === 'created' ? user.createdAt : user.updatedAt, term.range)
    if (term.kind === 'tags') return term.values.some((tag) => user.tags.includes(tag))
    return null
  }
  if (candidate.type === 'organization') {
    const org = candidate.record
    if (term.kind === 'exact' && term.field === 'external_id') return org.externalId === term.value
    if (term.kind === 'time')
      return inRange(term.op, term.field === 'created' ? org.createdAt : org.updatedAt, term.range)
    if (term.kind === 'tags') return term.values.some((tag) => org.tags.includes(tag))
    return null
  }
  const ticket = candidate.record
  switch (term.kind) {
    case 'ticket_type':
      return term.value === 'none' ? ticket.type === null : ticket.type === term.value
    case 'ordered':
      if (term.field === 'status')
        return compare(term.op, statusRank(ticket.status), statusRank(term.value as Ticket['status']))
      if (term.value === 'none') return ticket.priority === null
      if (ticket.priority === null) return false
      return compare(
        term.op,
        priorityRank(ticket.priority) as number,
        priorityRank(term.value as Ticket['priority']) as number,
      )
    case 'person': {
      const wanted = resolvePerson(ctx, term.value)
      if (wanted === undefined) return false
      const actual =
        term.field === 'assignee'
          ? ticket.assigneeId
          : term.field === 'requester'
            ? ticket.requesterId
            : ticket.submitterId
      return actual === wanted
    }
    case 'organization': {
      const wanted = resolveOrganization(ctx, term.value)
      return wanted !== undefined && ticket.organizationId === wanted
    }
    case 'tags':
      return term.values.some((tag) => ticket.tags.includes(tag))
    case 'time':
      return inRange(term.op, term.field === 'created' ? ticket.createdAt : ticket.updatedAt, term.range)
    case 'exact':
      return term.field === 'external_id' ? ticket.externalId === term.value : null
  }
}

/**
 * All terms must hold. A negated term excludes the records it holds for; a property that does
 * not apply to a record type (e.g. `status:` on a user) fails when positive and passes when negated.
 */
export function matches(ctx: MatchContext, terms: Term[], candidate: Candidate): boolean {
  return terms.every((term) => {
    if (term.kind === 'result_type') return true // applied by allowedResultTypes
    const result = holds(ctx, term, candidate)
    if (result === null) return term.negated
    return term.negated ? !result : result
  })
}
