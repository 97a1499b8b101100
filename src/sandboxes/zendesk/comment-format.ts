import { escapeHtml } from './http.ts'

/**
 * Zendesk stores each comment three ways: `body` (text as written), `html_body` (rendered,
 * wrapped in `<div class="zd-comment">`), and `plain_body` (text without markup).
 */
export interface CommentBodies {
  body: string
  htmlBody: string
  plainBody: string
}

export function bodiesFromText(text: string): CommentBodies {
  const paragraphs = text
    .split(/\n{2,}/)
    .map((p) => `<p dir="auto">${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('')
  return { body: text, htmlBody: `<div class="zd-comment" dir="auto">${paragraphs}</div>`, plainBody: text }
}

export function bodiesFromHtml(html: string): CommentBodies {
  const text = htmlToText(html)
  return { body: text, htmlBody: `<div class="zd-comment" dir="auto">${html}</div>`, plainBody: text }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' }

export function htmlToText(html: string): string {
  return html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>\s*/gi, '\n\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, name: string) => ENTITIES[name] ?? '')
    .trim()
}
