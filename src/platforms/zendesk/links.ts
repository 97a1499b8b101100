/** A ticket in the agent interface, on the integration's own host (the sandbox's for sandbox accounts). */
export function ticketUrl(baseUrl: string, id: number): string {
  return `${baseUrl}/agent/tickets/${id}`
}

/** "Ticket #7: Printer on fire", or "Ticket #7" for a ticket without a subject. */
export function ticketLabel(ticket: { id: number; subject: string | null }): string {
  return ticket.subject ? `Ticket #${ticket.id}: ${ticket.subject}` : `Ticket #${ticket.id}`
}

export { plural } from '../../core/tools/plural.ts'
