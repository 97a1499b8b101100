import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { platforms } from '../src/platforms/index.ts'
import { renderPage } from '../src/server/docs/render.ts'

// The docs/ folder is served as the instance's manual, so the web app can link each platform and
// step to its page (issue: "the web app links each platform and step to its page in docs/").
let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack()
})
afterAll(async () => stack?.close())

const get = (path: string) => fetch(`${stack.url}${path}`)
const html = async (path: string) => {
  const res = await get(path)
  expect(res.status, path).toBe(200)
  expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
  return res.text()
}
/** The ids a page's elements carry: where its links may point. */
const idsIn = (page: string) => new Set([...page.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]))

describe('every tool step and platform the web app links to has its place in the docs', () => {
  it('every step in the catalogue has an anchor named by its id on the tool steps page', async () => {
    const ids = idsIn(await html('/docs/tools.md'))
    const steps = platforms.flatMap((p) => p.tools.map((t) => t.id))
    expect(steps.length).toBeGreaterThan(20)
    expect(steps.filter((id) => !ids.has(id))).toEqual([])
  })

  it.each(platforms.map((p) => p.id))('%s has a connection page and a triggers page', async (platform) => {
    expect(await html(`/docs/platforms/${platform}.md`)).toMatch(/<h1[^>]*>Connecting /)
    expect(await html(`/docs/triggers/${platform}.md`)).toMatch(/<h1[^>]*>.* triggers/i)
  })

  it('the index lists every page, and is a page of its own (no login, no web app)', async () => {
    const index = await html('/docs')
    for (const page of ['tools.md', 'agents.md', 'platforms/trello.md', 'triggers/vercel.md'])
      expect(index).toContain(`href="/docs/${page}"`)
    const css = await get('/docs/assets/docs.css')
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8')
  })
})

describe('links between doc pages lead somewhere', () => {
  it('every link from one page to another, and to a heading on it, resolves', async () => {
    const index = await html('/docs')
    const pages = [...index.matchAll(/href="\/docs\/([^"]+\.md)"/g)].map((m) => m[1]!)
    const broken: string[] = []
    let checked = 0
    const rendered = new Map<string, string>()
    const pageAt = async (rel: string) =>
      rendered.get(rel) ?? rendered.set(rel, await (await get(`/docs/${rel}`)).text()).get(rel)!
    for (const rel of pages) {
      const source = await pageAt(rel)
      for (const [, href] of [...source.matchAll(/<a href="((?:[^"#:]*\.md)?(?:#[^"]*)?)"/g)]) {
        if (!href) continue
        checked++
        const [target, fragment] = href.split('#') as [string, string | undefined]
        if (target.includes('..') && !new URL(target, `http://x/docs/${rel}`).pathname.startsWith('/docs/'))
          continue // the README or source, outside docs/
        const targetRel = target
          ? new URL(target, `http://x/docs/${rel}`).pathname.slice('/docs/'.length)
          : rel
        const res = target ? await get(`/docs/${targetRel}`) : { status: 200 }
        if (res.status !== 200) broken.push(`${rel} → ${href} (${res.status})`)
        else if (fragment && !idsIn(await pageAt(targetRel)).has(decodeURIComponent(fragment)))
          broken.push(`${rel} → ${href} (no such heading)`)
      }
    }
    expect(checked).toBeGreaterThan(30)
    expect(broken).toEqual([])
  })
})

/** A GET with the path exactly as written: fetch would resolve `..` before sending. */
function rawGet(path: string): Promise<{ status: number; type: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${stack.url}/`, { path }, (res) => {
      res.resume()
      resolve({ status: res.statusCode!, type: String(res.headers['content-type']) })
    })
    req.on('error', reject)
  })
}

describe('only pages are served: anything else is a JSON 4xx', () => {
  it.each([
    ['/docs/../package.json', 404],
    ['/docs/%2e%2e/package.json', 404],
    ['/docs/..%2fpackage.json', 404],
    ['/docs/platforms/../../README.md', 404],
    ['/docs/./tools.md', 404],
    ['/docs//etc/passwd', 404],
    ['/docs/tools', 404],
    ['/docs/TOOLS.md', 404],
    ['/docs/nope.md', 404],
    ['/docs/platforms/', 404],
    ['/docs/.hidden.md', 404],
    ['/docs/tools.md%00', 400],
  ])('GET %s answers %i', async (path, status) => {
    const res = await rawGet(path)
    expect(res.status).toBe(status)
    expect(res.type).toContain('application/problem+json')
  })
})

describe('a page shows what is written in it as text, never as markup', () => {
  it('raw HTML in a page is escaped', () => {
    const root = mkdtempSync(join(tmpdir(), 'switchyard-docs-'))
    try {
      writeFileSync(
        join(root, 'page.md'),
        '# Title\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1))\n',
      )
      const page = renderPage('page.md', root)!
      expect(page).not.toContain('<script>alert')
      expect(page).toContain('&lt;script&gt;')
      expect(page).not.toContain('href="javascript:')
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
