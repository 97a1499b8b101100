import { z } from 'zod'
import { defineTool } from '../../../core/tools/define.ts'
import { Priority, Status, Ticket, TicketId, UserRef } from '../schemas.ts'
import { assigneeFields } from './assignee.ts'
import { ticketLabel, ticketUrl } from '../links.ts'
import { assigneeOptions, ticketOptions } from '../options.ts'

const Tag = z
  .string()
  .trim()
  .min(1)
  .max(80)
  .regex(/^[^\s,]+$/, 'tags are single words without spaces or commas')

export const updateTicket = defineTool({
  id: 'zendesk.update_ticket',
  title: 'Update Ticket',
  description:
    "Change a ticket's status, priority, assignee or tags, and add an internal note or a public comment.",
  effect: 'write',
  options: { ticket_id: ticketOptions, assignee: assigneeOptions },
  input: z
    .object({
      ticket_id: TicketId,
      status: Status.optional(),
      priority: Priority.nullable().optional(),
      assignee: UserRef.nullable().optional().describe('Agent id or email; null unassigns'),
      tags: z.array(Tag).max(100).optional().describe('Replaces all tags'),
      internal_note: z.string().trim().min(1).max(65_000).optional().describe('Visible to agents only'),
      public_comment: z.string().trim().min(1).max(65_000).optional().describe('Visible to the requester'),
    })
    .superRefine((input, ctx) => {
      // Zendesk adds one comment per update, so both at once would silently drop one.
      if (input.internal_note !== undefined && input.public_comment !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['public_comment'],
          message: 'give either internal_note or public_comment, not both',
        })
      }
      const { ticket_id: _id, ...changes } = input
      if (Object.values(changes).every((v) => v === undefined)) {
        ctx.addIssue({
          code: 'custom',
          path: ['status'],
          message:
            'give at least one change: status, priority, assignee, tags, internal_note or public_comment',
        })
      }
    }),
  output: Ticket,
  summarize: (ticket, { baseUrl }) => ({
    text: `${ticketLabel(ticket)} updated (${ticket.status})`,
    url: ticketUrl(baseUrl, ticket.id),
  }),
  async run({ api }, input) {
    const comment =
      input.internal_note !== undefined
        ? { body: input.internal_note, public: false }
        : input.public_comment !== undefined
          ? { body: input.public_comment, public: true }
          : undefined
    const ticket = {
      status: input.status,
      priority: input.priority,
      tags: input.tags,
      comment,
      ...assigneeFields(input.assignee),
    }
    return (await api.put(`/api/v2/tickets/${input.ticket_id}.json`, { ticket })).ticket
  },
})
