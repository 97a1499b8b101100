const API_BASE = 'https://api.trello.com'
const WEB_BASE = 'https://trello.com'

/**
 * Trello answers links on trello.com. They are rebased onto the integration's base URL so that a
 * sandbox's cards link to the sandbox; the real API's base maps to the real web app.
 */
export function webUrl(baseUrl: string, platformUrl: string): string | undefined {
  let path: string
  try {
    const url = new URL(platformUrl)
    path = `${url.pathname}${url.search}`
  } catch {
    return undefined
  }
  return `${baseUrl === API_BASE ? WEB_BASE : baseUrl}${path}`
}

export { plural } from '../../core/tools/plural.ts'

/** A card as a summary names it: `"Printer on fire"`, or `without a name` (Trello allows empty names). */
export const cardName = (card: { name: string }): string => (card.name ? `"${card.name}"` : 'without a name')
