import { z } from 'zod'
import { defineTool } from '../../../core/tools/define.ts'
import { TicketId } from '../schemas.ts'
import { ticketOptions } from '../options.ts'

export const deleteTicket = defineTool({
  id: 'zendesk.delete_ticket',
  title: 'Delete Ticket',
  description:
    'Permanently delete a ticket. It is not kept in the deleted-tickets view and cannot be restored.',
  effect: 'delete',
  options: { ticket_id: ticketOptions },
  input: z.object({ ticket_id: TicketId }),
  output: z.object({ id: z.number().int(), deleted: z.literal(true) }),
  confirm: 'Delete this ticket for good? It is not kept among deleted tickets and cannot be restored.',
  summarize: ({ id }) => ({ text: `Ticket #${id} deleted permanently` }),
  async run({ api }, { ticket_id }) {
    // Zendesk's DELETE /tickets/{id} only soft-deletes (the ticket sits in "deleted tickets" for 30
    // days); the step promises permanent removal, so it also deletes it from there.
    await api.delete(`/api/v2/tickets/${ticket_id}.json`)
    await api.delete(`/api/v2/deleted_tickets/${ticket_id}.json`)
    return { id: ticket_id, deleted: true as const }
  },
})
