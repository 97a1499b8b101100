import type { Account, Audit, Comment, Organization, Ticket, User, Via } from './model.ts'
import { TICKET_STATUSES } from './model.ts'
import { attachmentJson } from './uploads.ts'
import { isoSeconds } from './time.ts'

/**
 * JSON shapes as Zendesk returns them. `base` is the account base URL the client used
 * (e.g. `http://127.0.0.1:4010/zendesk/acme`), so every `url` can be followed as-is.
 */

const isoOrNull = (ms: number | null): string | null => (ms === null ? null : isoSeconds(ms))

/** Each account has one system custom status per status category; ids are derived, stable per account. */
export function customStatusId(account: Account, status: Ticket['status']): number {
  return account.id * 100 + TICKET_STATUSES.indexOf(status) + 1
}

export function viaJson(via: Via): Via {
  return {
    channel: via.channel,
    source: { from: { ...via.source.from }, to: { ...via.source.to }, rel: via.source.rel },
  }
}

export function ticketJson(account: Account, ticket: Ticket, base: string): Record<string, unknown> {
  const hasIncidents = [...account.tickets.values()].some((t) => t.problemId === ticket.id)
  const customFields = ticket.customFields.map((field) => ({ id: field.id, value: field.value }))
  return {
    url: `${base}/api/v2/tickets/${ticket.id}.json`,
    id: ticket.id,
    external_id: ticket.externalId,
    via: viaJson(ticket.via),
    created_at: isoSeconds(ticket.createdAt),
    updated_at: isoSeconds(ticket.updatedAt),
    generated_timestamp: Math.floor(ticket.updatedAt / 1000),
    type: ticket.type,
    subject: ticket.subject,
    raw_subject: ticket.rawSubject,
    description: ticket.description,
    priority: ticket.priority,
    status: ticket.status,
    recipient: null,
    requester_id: ticket.requesterId,
    submitter_id: ticket.submitterId,
    assignee_id: ticket.assigneeId,
    organization_id: ticket.organizationId,
    group_id: ticket.groupId,
    collaborator_ids: [...ticket.collaboratorIds],
    follower_ids: [...ticket.followerIds],
    email_cc_ids: [...ticket.emailCcIds],
    forum_topic_id: null,
    problem_id: ticket.problemId,
    has_incidents: hasIncidents,
    is_public: ticket.isPublic,
    due_at: isoOrNull(ticket.dueAt),
    tags: [...ticket.tags],
    custom_fields: customFields,
    satisfaction_rating: null,
    sharing_agreement_ids: [],
    custom_status_id: customStatusId(account, ticket.status),
    fields: customFields.map((field) => ({ ...field })),
    followup_ids: [],
    ticket_form_id: null,
    brand_id: ticket.brandId,
    allow_channelback: false,
    allow_attachments: true,
    from_messaging_channel: false,
  }
}

export function userJson(user: User, base: string): Record<string, unknown> {
  return {
    id: user.id,
    url: `${base}/api/v2/users/${user.id}.json`,
    name: user.name,
    email: user.email || null,
    created_at: isoSeconds(user.createdAt),
    updated_at: isoSeconds(user.updatedAt),
    time_zone: user.timeZone,
    iana_time_zone: user.timeZone === 'UTC' ? 'Etc/UTC' : user.timeZone,
    phone: user.phone,
    shared_phone_number: null,
    photo: null,
    locale_id: 1,
    locale: user.locale,
    organization_id: user.organizationId,
    role: user.role,
    verified: user.verified,
    external_id: user.externalId,
    tags: [...user.tags],
    alias: user.alias,
    active: user.active,
    shared: false,
    shared_agent: false,
    last_login_at: isoOrNull(user.lastLoginAt),
    two_factor_auth_enabled: false,
    signature: user.signature,
    details: user.details,
    notes: user.notes,
    role_type: null,
    custom_role_id: null,
    moderator: user.role === 'admin',
    ticket_restriction: user.role === 'end-user' ? 'requested' : null,
    only_private_comments: false,
    restricted_agent: user.role === 'end-user',
    suspended: user.suspended,
    default_group_id: null,
    report_csv: user.role === 'admin',
    user_fields: { ...user.userFields },
  }
}

/**
 * `GET /users/me` without credentials answers 200 with an anonymous user (users.yml: "Allowed
 * For: Anonymous users"; a third-party probe captured `"name":"Anonymous user"`).
 */
export function anonymousUserJson(): Record<string, unknown> {
  return {
    id: null,
    url: null,
    name: 'Anonymous user',
    email: 'invalid@example.com',
    created_at: null,
    updated_at: null,
    time_zone: 'UTC',
    iana_time_zone: 'Etc/UTC',
    phone: null,
    shared_phone_number: null,
    photo: null,
    locale_id: 1,
    locale: 'en-US',
    organization_id: null,
    role: 'end-user',
    verified: false,
    authenticity_token: null,
  }
}

export function organizationJson(organization: Organization, base: string): Record<string, unknown> {
  return {
    url: `${base}/api/v2/organizations/${organization.id}.json`,
    id: organization.id,
    name: organization.name,
    shared_tickets: organization.sharedTickets,
    shared_comments: organization.sharedComments,
    external_id: organization.externalId,
    created_at: isoSeconds(organization.createdAt),
    updated_at: isoSeconds(organization.updatedAt),
    deleted_at: null,
    domain_names: [...organization.domainNames],
    details: organization.details,
    notes: organization.notes,
    group_id: organization.groupId,
    tags: [...organization.tags],
    organization_fields: { ...organization.organizationFields },
  }
}

const COMMENT_METADATA = {
  system: {
    client: 'Switchyard Zendesk sandbox',
    ip_address: '127.0.0.1',
    location: null,
    latitude: null,
    longitude: null,
  },
  custom: {},
}

export function commentJson(comment: Comment): Record<string, unknown> {
  return {
    id: comment.id,
    type: 'Comment',
    author_id: comment.authorId,
    body: comment.body,
    html_body: comment.htmlBody,
    plain_body: comment.plainBody,
    public: comment.public,
    attachments: (comment.attachments ?? []).map(attachmentJson),
    audit_id: comment.auditId,
    via: viaJson(comment.via),
    created_at: isoSeconds(comment.createdAt),
    metadata: structuredClone(COMMENT_METADATA),
  }
}

export function auditJson(account: Account, audit: Audit): Record<string, unknown> {
  const comments = account.comments.get(audit.ticketId) ?? []
  const events = audit.events.map((event) => {
    if (event.type === 'Comment') {
      const comment = comments.find((c) => c.id === event.commentId)
      const shown = comment ? commentJson(comment) : { type: 'Comment' }
      // Audit events carry the comment inline under the event's own id (Zendesk audit shape).
      return { ...shown, id: event.id }
    }
    return { ...event }
  })
  return {
    id: audit.id,
    ticket_id: audit.ticketId,
    created_at: isoSeconds(audit.createdAt),
    author_id: audit.authorId,
    metadata: structuredClone(COMMENT_METADATA),
    via: viaJson(audit.via),
    events,
  }
}
