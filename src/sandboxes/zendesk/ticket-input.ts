import { bodiesFromHtml, bodiesFromText, type CommentBodies } from './comment-format.ts'
import type { ValidationErrors } from './errors.ts'
import { isRecord } from './http.ts'
import type { Account, CustomFieldValue, Ticket, User } from './model.ts'
import { TICKET_PRIORITIES, TICKET_STATUSES, TICKET_TYPES } from './model.ts'
import type { SandboxStore } from './state.ts'

/**
 * Reading the `ticket` object of create and update requests into typed changes. Each parser
 * returns undefined when the field is absent and records a 422 detail when it is invalid.
 */

export type Fields = Record<string, unknown>

export const has = (input: Fields, key: string) => Object.prototype.hasOwnProperty.call(input, key)

function isInt(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value)
}

/** `1` and `"1"` both name record 1: Zendesk (Rails) coerces numeric strings. */
export function asId(value: unknown): number | null | undefined {
  if (value === null) return null
  if (isInt(value)) return value
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value)
  return undefined
}

/** Tags are lower-cased and whitespace separated: `"a b"` is two tags, as in Zendesk. */
export function normalizeTags(value: unknown): string[] | undefined {
  const raw = Array.isArray(value) ? value : typeof value === 'string' ? [value] : undefined
  if (raw === undefined) return undefined
  const tags: string[] = []
  for (const entry of raw) {
    if (typeof entry !== 'string' && typeof entry !== 'number') continue
    for (const tag of String(entry)
      .toLowerCase()
      .split(/[\s,]+/))
      if (tag && !tags.includes(tag)) tags.push(tag)
  }
  return tags
}

function idList(value: unknown): number[] | undefined {
  if (!Array.isArray(value)) return undefined
  return value.map(asId).filter((id): id is number => typeof id === 'number')
}

function parseCustomFields(value: unknown, errors: ValidationErrors): CustomFieldValue[] | undefined {
  if (value === undefined) return undefined
  if (!Array.isArray(value)) {
    errors.add('custom_fields', 'Custom fields: must be an array of {id, value}', 'InvalidValue')
    return undefined
  }
  const fields: CustomFieldValue[] = []
  for (const entry of value) {
    const id = isRecord(entry) ? asId(entry.id) : undefined
    if (!isRecord(entry) || typeof id !== 'number') {
      errors.add('custom_fields', 'Custom fields: each entry needs an integer id', 'InvalidValue')
      continue
    }
    fields.push({ id, value: entry.value ?? null })
  }
  return fields
}

export function mergeCustomFields(
  existing: CustomFieldValue[],
  changes: CustomFieldValue[],
): CustomFieldValue[] {
  const merged = existing.map((f) => ({ ...f }))
  for (const change of changes) {
    const current = merged.find((f) => f.id === change.id)
    if (current) current.value = change.value
    else merged.push({ ...change })
  }
  return merged
}

function parseEnum<T extends string>(
  input: Fields,
  key: string,
  allowed: readonly T[],
  label: string,
  errors: ValidationErrors,
  nullable: boolean,
): T | null | undefined {
  if (!has(input, key)) return undefined
  const value = input[key]
  if (nullable && (value === null || value === '')) return null
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value.toLowerCase())) {
    return value.toLowerCase() as T
  }
  errors.add(
    key,
    `${label}: ${String(value)} is not a valid value (allowed: ${allowed.join(', ')})`,
    'InvalidValue',
  )
  return undefined
}

function parseDueAt(input: Fields, errors: ValidationErrors): number | null | undefined {
  if (!has(input, 'due_at')) return undefined
  const value = input.due_at
  if (value === null || value === '') return null
  const ms = typeof value === 'string' ? Date.parse(value) : NaN
  if (Number.isNaN(ms)) {
    errors.add('due_at', 'Due at: is not a valid date', 'InvalidValue')
    return undefined
  }
  return ms
}

export interface CommentInput {
  bodies: CommentBodies
  public: boolean | undefined
  authorId: number | undefined
  /** Upload tokens whose files the comment takes (uploads.ts). */
  uploads: string[]
}

function parseComment(value: unknown, account: Account, errors: ValidationErrors): CommentInput | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value === 'string')
    return value.trim()
      ? { bodies: bodiesFromText(value), public: undefined, authorId: undefined, uploads: [] }
      : undefined
  if (!isRecord(value)) {
    errors.add('comment', 'Comment: must be an object with a body', 'InvalidValue')
    return undefined
  }
  const html = typeof value.html_body === 'string' && value.html_body.trim() ? value.html_body : undefined
  // `value` is the legacy alias of `body` that older clients still send.
  const text = [value.body, value.value].find((v): v is string => typeof v === 'string' && v.trim() !== '')
  if (html === undefined && text === undefined) return undefined
  let authorId: number | undefined
  if (has(value, 'author_id')) {
    const id = asId(value.author_id)
    if (typeof id !== 'number' || !account.users.has(id))
      errors.add('comment', 'Comment: author is invalid', 'InvalidValue')
    else authorId = id
  }
  const isPublic =
    typeof value.public === 'boolean'
      ? value.public
      : value.public === 'false'
        ? false
        : value.public === 'true'
          ? true
          : undefined
  let uploads: string[] = []
  if (has(value, 'uploads') && value.uploads !== null) {
    if (Array.isArray(value.uploads) && value.uploads.every((t) => typeof t === 'string'))
      uploads = value.uploads as string[]
    else errors.add('comment', 'Comment: uploads must be a list of upload tokens', 'InvalidValue')
  }
  return {
    bodies: html !== undefined ? bodiesFromHtml(html) : bodiesFromText(text as string),
    public: isPublic,
    authorId,
    uploads,
  }
}

/** Resolves `assignee_id` / `assignee_email` to an agent; end users cannot be assignees. */
function parseAssignee(
  input: Fields,
  account: Account,
  store: SandboxStore,
  errors: ValidationErrors,
): number | null | undefined {
  let user: User | undefined
  if (has(input, 'assignee_email') && input.assignee_email !== null) {
    user =
      typeof input.assignee_email === 'string' ? store.userByEmail(account, input.assignee_email) : undefined
    if (!user) {
      errors.add('assignee', `Assignee: ${String(input.assignee_email)} is not a known user`, 'InvalidValue')
      return undefined
    }
  } else if (has(input, 'assignee_id')) {
    const id = asId(input.assignee_id)
    if (id === null) return null
    user = typeof id === 'number' ? account.users.get(id) : undefined
    if (!user) {
      errors.add('assignee', 'Assignee: is invalid', 'InvalidValue')
      return undefined
    }
  } else {
    return undefined
  }
  if (user.role === 'end-user') {
    errors.add('assignee', `Assignee: ${user.name} is not an agent`, 'InvalidValue')
    return undefined
  }
  return user.id
}

/** `requester_id`, or `requester: {name, email}` which finds or creates an end user. */
export function parseRequester(
  input: Fields,
  account: Account,
  store: SandboxStore,
  errors: ValidationErrors,
): { id?: number; create?: { name: string; email: string } } {
  if (isRecord(input.requester)) {
    const email = typeof input.requester.email === 'string' ? input.requester.email.trim().toLowerCase() : ''
    const name = typeof input.requester.name === 'string' ? input.requester.name.trim() : ''
    const existing = email ? store.userByEmail(account, email) : undefined
    if (existing) return { id: existing.id }
    // Wording captured from zenpy #287.
    if (!name) errors.add('requester', 'Requester: Name:  is too short (minimum is 1 character)')
    if (!/^[^@\s]+@[^@\s]+$/.test(email))
      errors.add('requester', `Requester: Email: ${email} is not properly formatted`)
    return name && email ? { create: { name, email } } : {}
  }
  if (has(input, 'requester_id')) {
    const id = asId(input.requester_id)
    if (typeof id !== 'number' || !account.users.has(id)) {
      errors.add('requester', 'Requester: is invalid', 'InvalidValue')
      return {}
    }
    return { id }
  }
  return {}
}

function parseSubject(input: Fields, errors: ValidationErrors): string | null | undefined {
  if (!has(input, 'subject')) return undefined
  const value = input.subject
  if (value === null) return null
  if (typeof value !== 'string') {
    errors.add('subject', 'Subject: must be a string', 'InvalidValue')
    return undefined
  }
  return value
}

function parseOrganization(
  input: Fields,
  account: Account,
  errors: ValidationErrors,
): number | null | undefined {
  if (!has(input, 'organization_id')) return undefined
  const id = asId(input.organization_id)
  if (id === null) return null
  if (typeof id !== 'number' || !account.organizations.has(id)) {
    errors.add('organization_id', 'Organization: is invalid', 'InvalidValue')
    return undefined
  }
  return id
}

function parseProblem(input: Fields, account: Account, errors: ValidationErrors): number | null | undefined {
  if (!has(input, 'problem_id')) return undefined
  const id = asId(input.problem_id)
  if (id === null) return null
  if (typeof id !== 'number' || !account.tickets.has(id)) {
    errors.add('problem_id', 'Problem: is invalid', 'InvalidValue')
    return undefined
  }
  return id
}

/** Field changes shared by create and update; undefined means "not in the request". */
export interface ParsedFields {
  subject?: string | null
  status?: Ticket['status'] | null
  priority?: Ticket['priority']
  type?: Ticket['type']
  assigneeId?: number | null
  organizationId?: number | null
  groupId?: number | null
  tags?: string[]
  customFields?: CustomFieldValue[]
  externalId?: string | null
  dueAt?: number | null
  problemId?: number | null
  collaboratorIds?: number[]
  followerIds?: number[]
  emailCcIds?: number[]
  comment?: CommentInput
}

export function parseFields(
  input: Fields,
  account: Account,
  store: SandboxStore,
  errors: ValidationErrors,
): ParsedFields {
  const externalId = has(input, 'external_id')
    ? input.external_id === null
      ? null
      : typeof input.external_id === 'string' || typeof input.external_id === 'number'
        ? String(input.external_id)
        : undefined
    : undefined
  const groupId = has(input, 'group_id') ? asId(input.group_id) : undefined
  const customFields = parseCustomFields(input.custom_fields ?? input.fields, errors)
  return {
    subject: parseSubject(input, errors),
    status: parseEnum(input, 'status', TICKET_STATUSES, 'Status', errors, false),
    priority: parseEnum(input, 'priority', TICKET_PRIORITIES, 'Priority', errors, true),
    type: parseEnum(input, 'type', TICKET_TYPES, 'Type', errors, true),
    assigneeId: parseAssignee(input, account, store, errors),
    organizationId: parseOrganization(input, account, errors),
    groupId: groupId === undefined ? undefined : groupId,
    tags: normalizeTags(input.tags),
    customFields,
    externalId,
    dueAt: parseDueAt(input, errors),
    problemId: parseProblem(input, account, errors),
    collaboratorIds: idList(input.collaborator_ids),
    followerIds: idList(input.follower_ids),
    emailCcIds: idList(input.email_cc_ids),
    comment: parseComment(input.comment, account, errors),
  }
}
