import { z } from 'zod'
import { defineTool } from '../../../core/tools/define.ts'
import { AttachmentsInput, uploadAll } from '../attachments.ts'
import { Priority, Ticket, TicketType, UserRef } from '../schemas.ts'
import { assigneeFields } from './assignee.ts'
import { ticketLabel, ticketUrl } from '../links.ts'
import { assigneeOptions } from '../options.ts'

export const createTicket = defineTool({
  id: 'zendesk.create_ticket',
  title: 'Create Ticket',
  description:
    'Create a ticket in the connected Zendesk account. The description becomes its first comment, with the attachments (base64 files, up to 10 MB in all).',
  effect: 'write',
  options: { assignee: assigneeOptions },
  input: z.object({
    subject: z.string().trim().min(1).max(255),
    description: z.string().trim().min(1).max(65_000),
    priority: Priority.optional(),
    type: TicketType.optional(),
    assignee: UserRef.optional().describe('Agent id or email'),
    attachments: AttachmentsInput.optional().describe(
      'Files for the first comment, each {file_name, content_type (default application/octet-stream), content_base64}: at most 10 files, 10 MB each and in all',
    ),
  }),
  output: Ticket,
  summarize: (ticket, { baseUrl }) => ({
    text: `${ticketLabel(ticket)} created`,
    url: ticketUrl(baseUrl, ticket.id),
  }),
  async run({ api }, input) {
    // Zendesk attaches files through a comment that names their upload token.
    const uploads = input.attachments ? [await uploadAll(api, input.attachments)] : undefined
    const ticket = {
      subject: input.subject,
      // The first comment becomes the ticket's description (docs/platforms/zendesk.md, "Facts").
      comment: { body: input.description, uploads },
      priority: input.priority,
      type: input.type,
      ...assigneeFields(input.assignee),
    }
    try {
      return (await api.post('/api/v2/tickets.json', { ticket })).ticket
    } catch (err) {
      // The files would otherwise wait three days for their token to expire; a token the ticket
      // did take is used up, and deleting it then answers 404, which changes nothing.
      if (uploads)
        await api
          .delete(`/api/v2/uploads/${encodeURIComponent(uploads[0] as string)}.json`)
          .catch(() => undefined)
      throw err
    }
  },
})
