import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import MarkdownIt from 'markdown-it'
import anchor from 'markdown-it-anchor'

/** The repository's `docs/` folder, shipped with the service. */
export const DOCS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs')

/** A page's path under docs/: lower-case words, folders, ending in .md. Anything else is not a page. */
const PAGE_PATH = /^[a-z0-9-]+(?:\/[a-z0-9-]+)*\.md$/

/**
 * A heading's anchor. The tool catalogue's headings end with the step's id
 * ("Create Card — `trello.create_card`"), so a step's anchor is its id and the web app can link to
 * `/docs/tools.md#trello.create_card` without knowing how titles become slugs. Other headings get
 * the slug GitHub gives them, so the links the docs already make to one another keep working.
 */
export function headingSlug(text: string): string {
  const id = /\s—\s([a-z]+\.[a-z0-9_]+)$/.exec(text.trim())?.[1]
  if (id) return id
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

// html: false, so any HTML written in a page is shown as text, never run.
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false }).use(anchor, {
  slugify: headingSlug,
  tabIndex: false,
})

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

export const DOCS_STYLESHEET_PATH = '/docs/assets/docs.css'

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Switchyard docs</title>
<link rel="stylesheet" href="${DOCS_STYLESHEET_PATH}">
</head>
<body>
<nav class="docs-nav"><a href="/">Switchyard</a> · <a href="/docs">Docs</a></nav>
<main class="docs">
${body}
</main>
</body>
</html>
`
}

const titleOf = (source: string, fallback: string) =>
  /^#\s+(.+)$/m.exec(source)?.[1]?.replace(/`/g, '').trim() ?? fallback

/** The page at `rel` (such as `platforms/trello.md`) as HTML, or null when there is no such page. */
export function renderPage(rel: string, root = DOCS_DIR): string | null {
  if (!PAGE_PATH.test(rel)) return null
  const file = path.resolve(root, rel)
  if (!file.startsWith(root + path.sep) || !fs.existsSync(file)) return null
  const source = fs.readFileSync(file, 'utf8')
  return page(titleOf(source, rel), markdown.render(source))
}

/** Every page, grouped by folder, with its title: what /docs lists. */
export function renderIndex(root = DOCS_DIR): string {
  const pages = listPages(root).map((rel) => ({
    rel,
    title: titleOf(fs.readFileSync(path.join(root, rel), 'utf8'), rel),
  }))
  const items = pages
    .map(
      (p) =>
        `<li><a href="/docs/${p.rel}">${escapeHtml(p.title)}</a> <span class="muted">${escapeHtml(p.rel)}</span></li>`,
    )
    .join('\n')
  return page('Docs', `<h1>Switchyard docs</h1>\n<ul class="docs-index">\n${items}\n</ul>`)
}

function listPages(root: string, dir = ''): string[] {
  return fs
    .readdirSync(path.join(root, dir), { withFileTypes: true })
    .sort((a, b) => Number(a.isDirectory()) - Number(b.isDirectory()) || a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const rel = dir ? `${dir}/${entry.name}` : entry.name
      if (entry.isDirectory()) return listPages(root, rel)
      return PAGE_PATH.test(rel) ? [rel] : []
    })
}

export const DOCS_STYLESHEET = `
body { margin: 0; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1c1e21; background: #f6f6f7; }
.docs-nav { padding: 0.75rem 1.25rem; background: #fff; border-bottom: 1px solid #e1e3e6; font-weight: 600; }
.docs-nav a { color: #1c1e21; text-decoration: none; }
.docs { max-width: 52rem; margin: 0 auto; padding: 1.5rem 1.25rem 4rem; background: #fff; overflow-wrap: break-word; }
.docs h1, .docs h2, .docs h3 { line-height: 1.25; margin-top: 1.8em; }
.docs h1 { margin-top: 0.5em; }
.docs :target { background: #fff6d6; }
.docs a { color: #1f4fd1; }
.docs code { font: 0.9em ui-monospace, SFMono-Regular, Menlo, monospace; background: #f0f1f3; padding: 0.1em 0.3em; border-radius: 4px; }
.docs pre { background: #f0f1f3; padding: 0.8rem 1rem; overflow-x: auto; border-radius: 6px; }
.docs pre code { background: none; padding: 0; }
.docs table { border-collapse: collapse; display: block; overflow-x: auto; }
.docs th, .docs td { border: 1px solid #e1e3e6; padding: 0.35rem 0.6rem; text-align: left; vertical-align: top; }
.docs blockquote { margin: 0; padding-left: 1rem; border-left: 3px solid #e1e3e6; color: #555; }
.docs-index li { margin: 0.3rem 0; }
.muted { color: #6b6f76; font-size: 0.9em; }
`
