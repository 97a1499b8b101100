import { z } from 'zod'
import { defineTool } from '../../../core/tools/define.ts'
import { Priority, Ticket, TicketType, UserRef } from '../schemas.ts'
import { assigneeFields } from './assignee.ts'

export const createTicket = defineTool({
  id: 'zendesk.create_ticket',
  title: 'Create Ticket',
  description: 'Create a ticket in the connected Zendesk account. The description becomes its first comment.',
  effect: 'write',
  input: z.object({
    subject: z.string().trim().min(1).max(255),
    description: z.string().trim().min(1).max(65_000),
    priority: Priority.optional(),
    type: TicketType.optional(),
    assignee: UserRef.optional().describe('Agent id or email'),
  }),
  output: Ticket,
  async run({ api }, input) {
    const ticket = {
      subject: input.subject,
      // The first comment becomes the ticket's description (docs/platforms/zendesk.md, "Facts").
      comment: { body: input.description },
      priority: input.priority,
      type: input.type,
      ...assigneeFields(input.assignee),
    }
    return (await api.post('/api/v2/tickets.json', { ticket })).ticket
  },
})
