import { bodiesFromText } from './comment-format.ts'
import { claimUploads } from './uploads.ts'
import { ValidationErrors } from './errors.ts'
import type { Account, Audit, AuditEvent, Comment, Ticket, User, Via } from './model.ts'
import type { SandboxStore } from './state.ts'
import {
  has,
  mergeCustomFields,
  normalizeTags,
  parseFields,
  parseRequester,
  asId,
  type CommentInput,
  type Fields,
} from './ticket-input.ts'
import { isoSeconds } from './time.ts'

const isoOrNull = (ms: number | null) => (ms === null ? null : isoSeconds(ms))

/**
 * Ticket create and update as Zendesk applies them (sources: Zendesk ticket writes and comments). Validation
 * failures are 422 RecordInvalid with per-field details; where Zendesk's exact wording is not
 * in the reference the message follows its "Field: problem" pattern.
 */

export interface Actor {
  user: User
  via: Via
}

export type WriteResult = { ok: true; ticket: Ticket; audit: Audit } | { ok: false; errors: ValidationErrors }

export function apiVia(): Via {
  return { channel: 'api', source: { from: {}, to: {}, rel: null } }
}

class AuditBuilder {
  readonly events: AuditEvent[] = []
  constructor(private readonly store: SandboxStore) {}

  created(field: string, value: unknown): void {
    this.events.push({ id: this.store.nextId('event'), type: 'Create', field_name: field, value })
  }

  changed(field: string, value: unknown, previous: unknown): void {
    if (JSON.stringify(value) === JSON.stringify(previous)) return
    this.events.push({
      id: this.store.nextId('event'),
      type: 'Change',
      field_name: field,
      value,
      previous_value: previous,
    })
  }
}

function addComment(
  store: SandboxStore,
  account: Account,
  ticket: Ticket,
  auditId: number,
  comment: CommentInput,
  isPublic: boolean,
  authorId: number,
  via: Via,
  now: number,
): Comment {
  const record: Comment = {
    id: store.nextId('comment'),
    ticketId: ticket.id,
    auditId,
    authorId,
    body: comment.bodies.body,
    htmlBody: comment.bodies.htmlBody,
    plainBody: comment.bodies.plainBody,
    public: isPublic,
    via,
    createdAt: now,
    attachments: claimUploads(account, comment.uploads, now),
  }
  const list = account.comments.get(ticket.id) ?? []
  list.push(record)
  account.comments.set(ticket.id, list)
  return record
}

/**
 * A new ticket is "new" until an agent is assigned, then "open" [plausible Zendesk rule: the
 * agent UI cannot save an assigned ticket as New]. Solving without an assignee assigns the
 * acting agent, as the agent UI does.
 */
function settleStatus(ticket: Ticket, actor: User): void {
  if (ticket.status === 'new' && ticket.assigneeId !== null) ticket.status = 'open'
  if (
    (ticket.status === 'solved' || ticket.status === 'closed') &&
    ticket.assigneeId === null &&
    actor.role !== 'end-user'
  ) {
    ticket.assigneeId = actor.id
  }
}

export function createTicket(
  store: SandboxStore,
  account: Account,
  input: Fields,
  actor: Actor,
  now: number,
): WriteResult {
  const errors = new ValidationErrors()
  const fields = parseFields(input, account, store, errors)
  const requester = parseRequester(input, account, store, errors)
  let submitterId = actor.user.id
  if (has(input, 'submitter_id')) {
    const id = asId(input.submitter_id)
    if (typeof id !== 'number' || !account.users.has(id))
      errors.add('submitter', 'Submitter: is invalid', 'InvalidValue')
    else submitterId = id
  }
  // The first comment becomes the description (Z-TAP). `description` is accepted as the
  // comment body when no comment is given, which many clients rely on.
  const comment =
    fields.comment ??
    (typeof input.description === 'string' && input.description.trim()
      ? { bodies: bodiesFromText(input.description), public: undefined, authorId: undefined, uploads: [] }
      : undefined)
  if (!comment) errors.add('base', 'Description: cannot be blank', 'BlankValue')
  if (!errors.empty || !comment) return { ok: false, errors }

  let requesterId = requester.id ?? actor.user.id
  if (requester.create) {
    requesterId = store.addUser(account, { ...requester.create, role: 'end-user' }, now).id
  }
  const requesterUser = account.users.get(requesterId) as User
  const isPublic = comment.public ?? true
  const ticket: Ticket = {
    id: account.nextTicketId++,
    subject: fields.subject ?? null,
    rawSubject: fields.subject ?? null,
    description: comment.bodies.plainBody,
    status: fields.status ?? 'new',
    priority: fields.priority ?? null,
    type: fields.type ?? null,
    requesterId,
    submitterId,
    assigneeId: fields.assigneeId ?? null,
    organizationId:
      fields.organizationId !== undefined ? fields.organizationId : requesterUser.organizationId,
    groupId: fields.groupId ?? null,
    collaboratorIds: fields.collaboratorIds ?? [],
    followerIds: fields.followerIds ?? [],
    emailCcIds: fields.emailCcIds ?? [],
    tags: fields.tags ?? [],
    customFields: fields.customFields ?? [],
    externalId: fields.externalId ?? null,
    dueAt: fields.dueAt ?? null,
    problemId: fields.problemId ?? null,
    isPublic,
    via: actor.via,
    brandId: account.brandId,
    createdAt: now,
    updatedAt: now,
  }
  settleStatus(ticket, actor.user)
  account.tickets.set(ticket.id, ticket)

  const audit: Audit = {
    id: store.nextId('audit'),
    ticketId: ticket.id,
    authorId: actor.user.id,
    via: actor.via,
    events: [],
    createdAt: now,
  }
  const record = addComment(
    store,
    account,
    ticket,
    audit.id,
    comment,
    isPublic,
    comment.authorId ?? actor.user.id,
    actor.via,
    now,
  )
  const builder = new AuditBuilder(store)
  builder.events.push({ id: record.id, type: 'Comment', commentId: record.id })
  builder.created('subject', ticket.subject)
  builder.created('requester_id', ticket.requesterId)
  builder.created('status', ticket.status)
  if (ticket.priority !== null) builder.created('priority', ticket.priority)
  if (ticket.type !== null) builder.created('type', ticket.type)
  if (ticket.assigneeId !== null) builder.created('assignee_id', ticket.assigneeId)
  if (ticket.organizationId !== null) builder.created('organization_id', ticket.organizationId)
  if (ticket.tags.length > 0) builder.created('tags', [...ticket.tags])
  audit.events = builder.events
  account.audits.set(ticket.id, [audit])
  return { ok: true, ticket, audit }
}

export type UpdateResult = WriteResult | { ok: false; conflict: true }

export function updateTicket(
  store: SandboxStore,
  account: Account,
  ticket: Ticket,
  input: Fields,
  actor: Actor,
  now: number,
): UpdateResult {
  const errors = new ValidationErrors()
  if (ticket.status === 'closed') {
    // Captured: `details.status[{"description":"closed prevents ticket update"}]`.
    errors.add('status', 'closed prevents ticket update')
    return { ok: false, errors }
  }
  // Zendesk's safe update: refuse when the caller's copy is stale (409 UpdateConflict).
  if (input.safe_update === true && typeof input.updated_stamp === 'string') {
    const stamp = Date.parse(input.updated_stamp)
    if (Number.isNaN(stamp) || Math.floor(stamp / 1000) !== Math.floor(ticket.updatedAt / 1000)) {
      return { ok: false, conflict: true }
    }
  }
  const fields = parseFields(input, account, store, errors)
  const requester = parseRequester(input, account, store, errors)
  if (fields.status === 'new' && ticket.status !== 'new') {
    errors.add('status', 'Status: cannot be set back to new', 'InvalidValue')
  }
  if (!errors.empty) return { ok: false, errors }

  const before = structuredClone(ticket)
  if (requester.create)
    requester.id = store.addUser(account, { ...requester.create, role: 'end-user' }, now).id
  if (requester.id !== undefined) ticket.requesterId = requester.id
  if (fields.subject !== undefined) {
    ticket.subject = fields.subject
    ticket.rawSubject = fields.subject
  }
  if (fields.status != null) ticket.status = fields.status
  if (fields.priority !== undefined) ticket.priority = fields.priority
  if (fields.type !== undefined) ticket.type = fields.type
  if (fields.assigneeId !== undefined) ticket.assigneeId = fields.assigneeId
  if (fields.organizationId !== undefined) ticket.organizationId = fields.organizationId
  if (fields.groupId !== undefined) ticket.groupId = fields.groupId
  if (fields.externalId !== undefined) ticket.externalId = fields.externalId
  if (fields.dueAt !== undefined) ticket.dueAt = fields.dueAt
  if (fields.problemId !== undefined) ticket.problemId = fields.problemId
  if (fields.collaboratorIds !== undefined) ticket.collaboratorIds = fields.collaboratorIds
  if (fields.followerIds !== undefined) ticket.followerIds = fields.followerIds
  if (fields.emailCcIds !== undefined) ticket.emailCcIds = fields.emailCcIds
  if (fields.customFields !== undefined)
    ticket.customFields = mergeCustomFields(ticket.customFields, fields.customFields)
  if (fields.tags !== undefined) ticket.tags = fields.tags
  const additional = normalizeTags(input.additional_tags) ?? []
  const removed = new Set(normalizeTags(input.remove_tags) ?? [])
  ticket.tags = [...ticket.tags, ...additional.filter((t) => !ticket.tags.includes(t))].filter(
    (t) => !removed.has(t),
  )
  settleStatus(ticket, actor.user)

  const audit: Audit = {
    id: store.nextId('audit'),
    ticketId: ticket.id,
    authorId: actor.user.id,
    via: actor.via,
    events: [],
    createdAt: now,
  }
  const builder = new AuditBuilder(store)
  if (fields.comment) {
    // Vendor doc (ticket comments): the public flag set at creation persists for later comments
    // unless changed, so an omitted `public` follows the ticket (true for most tickets).
    const isPublic = fields.comment.public ?? ticket.isPublic
    const record = addComment(
      store,
      account,
      ticket,
      audit.id,
      fields.comment,
      isPublic,
      fields.comment.authorId ?? actor.user.id,
      actor.via,
      now,
    )
    builder.events.push({ id: record.id, type: 'Comment', commentId: record.id })
    if (isPublic) ticket.isPublic = true
  }
  const tracked: Array<[string, unknown, unknown]> = [
    ['subject', ticket.subject, before.subject],
    ['status', ticket.status, before.status],
    ['priority', ticket.priority, before.priority],
    ['type', ticket.type, before.type],
    ['assignee_id', ticket.assigneeId, before.assigneeId],
    ['requester_id', ticket.requesterId, before.requesterId],
    ['organization_id', ticket.organizationId, before.organizationId],
    ['group_id', ticket.groupId, before.groupId],
    ['tags', ticket.tags, before.tags],
    ['due_at', isoOrNull(ticket.dueAt), isoOrNull(before.dueAt)],
    ['external_id', ticket.externalId, before.externalId],
    ['custom_fields', ticket.customFields, before.customFields],
  ]
  for (const [field, value, previous] of tracked) builder.changed(field, value, previous)
  audit.events = builder.events
  if (audit.events.length > 0) {
    ticket.updatedAt = now
    const audits = account.audits.get(ticket.id) ?? []
    audits.push(audit)
    account.audits.set(ticket.id, audits)
  }
  return { ok: true, ticket, audit }
}
