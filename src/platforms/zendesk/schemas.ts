import { z } from 'zod'

// Enums as Zendesk documents them (docs/platforms/zendesk.md, "Facts").
export const Status = z.enum(['new', 'open', 'pending', 'hold', 'solved', 'closed'])
export const Priority = z.enum(['urgent', 'high', 'normal', 'low'])
export const TicketType = z.enum(['problem', 'incident', 'question', 'task'])
/**
 * A positive integer, also accepted as a string of digits (agents often send ids as strings).
 * Not z.coerce: that would turn true into 1 and [] into 0.
 */
export const positiveInt = (message: string) =>
  z.preprocess(
    (v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
    z.number({ error: message }).int(message).positive(message),
  )

export const TicketId = positiveInt('must be a ticket id (a positive integer)')
/** Zendesk users are named by id or by email. */
export const UserRef = z.union([positiveInt('must be a user id'), z.string().trim().email()], {
  error: 'must be a user id (integer) or an email address',
})

export const Ticket = z.looseObject({
  id: z.number().int(),
  url: z.string().optional(),
  subject: z.string().nullable(),
  description: z.string().nullable().optional(),
  status: z.string(),
  priority: z.string().nullable(),
  type: z.string().nullable(),
  requester_id: z.number().int().nullable(),
  assignee_id: z.number().int().nullable(),
  tags: z.array(z.string()),
  created_at: z.string(),
  updated_at: z.string(),
})

export const Comment = z.looseObject({
  id: z.number().int(),
  author_id: z.number().int().nullable(),
  body: z.string(),
  public: z.boolean(),
  created_at: z.string(),
})

/** A user as other records name them. */
export const Person = z.object({ id: z.number().int(), name: z.string(), email: z.string().nullable() })

export type TicketRecord = z.infer<typeof Ticket>
