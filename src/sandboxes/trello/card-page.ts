import { escapeHtml, htmlResponse, type SandboxResponse } from './http.ts'
import type { TrelloSandbox } from './sandbox.ts'

/** A card's short URL path, `/c/{shortLink}`, as `shortUrl` names it (with an optional name slug, as on trello.com). */
export const CARD_PAGE_PATH = /^\/c\/([A-Za-z0-9]{8})(?:\/[^/]*)?\/?$/

/**
 * A plain read-only page standing in for a card on trello.com, so the links Switchyard shows for
 * sandbox cards lead somewhere (docs/sandbox.md). Undefined for no such card.
 */
export function cardPage(sb: TrelloSandbox, shortLink: string): SandboxResponse | undefined {
  const card = sb.store.cardByRef(shortLink)
  if (!card) return undefined
  const list = sb.store.lists.get(card.idList)
  const board = sb.store.boards.get(card.idBoard)
  return htmlResponse(
    200,
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(card.name)} · Trello sandbox</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}.desc{white-space:pre-wrap}</style></head>
<body><p>Trello sandbox · ${escapeHtml(board?.name ?? '')} · ${escapeHtml(list?.name ?? '')}</p>
<h1>${escapeHtml(card.name)}${card.closed ? ' (archived)' : ''}</h1>
<p class="desc">${escapeHtml(card.desc)}</p>
</body></html>
`,
  )
}
