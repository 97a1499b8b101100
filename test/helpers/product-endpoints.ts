import fs from 'node:fs'
import path from 'node:path'

/**
 * The endpoints a platform's product code names, read from its sources (platform.ts and tools/):
 * `api.get('/path')`-style calls anywhere in the platform's folder (tool steps, their helpers,
 * identify/revoke), and the OAuth URLs of the platform's facts. Values inside a path (`${ticket_id}`)
 * become `{}`, as `endpointKey` makes them, and a query string is left out. Contract tests
 * compare this list with their endpoint table, so a new request in a tool step needs a new row.
 */
export function productEndpoints(platformDir: string): string[] {
  const files = (fs.readdirSync(platformDir, { recursive: true }) as string[])
    .map((f) => path.join(platformDir, f))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  const found = new Set<string>()
  for (const file of files) {
    const source = fs.readFileSync(file, 'utf8')
    for (const m of source.matchAll(
      /\b(?:api|client)\s*\.(get|post|put|patch|delete)\(\s*(['`])(\/[^'`]*)\2/g,
    )) {
      found.add(`${m[1]!.toUpperCase()} ${template(m[3]!)}`)
    }
    // OAuth facts: `tokenUrl: (base) => `${base}/oauth/tokens``; authorize pages are opened in a browser (GET).
    for (const m of source.matchAll(/\b(\w*Url): \(base\) => `\$\{[^}]+\}(\/[^`]*)`/g)) {
      found.add(`${m[1] === 'authorizeUrl' ? 'GET' : 'POST'} ${template(m[2]!)}`)
    }
  }
  return [...found].sort()
}

function template(p: string): string {
  return p.split('?')[0]!.replace(/\$\{[^}]+\}/g, '{}')
}

/** `GET /a/{name}/b` → `GET /a/{}/b`: the form productEndpoints answers in. */
export function endpointKey(method: string, pathTemplate: string): string {
  return `${method} ${pathTemplate.replace(/\{[^}]*\}/g, '{}')}`
}
