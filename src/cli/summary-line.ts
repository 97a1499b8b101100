/**
 * The summary of a run's answer as one line for a terminal: "Ticket #7: Printer on fire created
 * <https://…/agent/tickets/7>", prefixed "Error:" when the platform answered a failure as data.
 */
export function summaryLine(body: unknown): string | null {
  const summary = (body as { summary?: { text?: unknown; url?: unknown; tone?: unknown } } | null)?.summary
  if (!summary || typeof summary.text !== 'string') return null
  const link = typeof summary.url === 'string' ? ` <${summary.url}>` : ''
  return `${summary.tone === 'error' ? 'Error: ' : ''}${summary.text}${link}`
}
