import { escapeHtml, htmlResponse, type SandboxResponse } from './http.ts'
import type { VercelSandbox } from './sandbox.ts'

/**
 * A deployment's inspector path, `/{owner}/{project}/{id without dpl_}`, as `inspectorUrl` names it.
 * API paths start with a version segment (`/v13/…`) and never match.
 */
export const INSPECTOR_PATH = /^\/(?!v\d+\/)([^/]+)\/([^/]+)\/([A-Za-z0-9]{6,64})\/?$/

/**
 * A plain read-only page standing in for Vercel's deployment inspector, so the links Switchyard
 * shows for sandbox deployments lead somewhere (docs/sandbox.md). Undefined for no such deployment.
 */
export function inspectorPage(sandbox: VercelSandbox, shortId: string): SandboxResponse | undefined {
  const d = sandbox.store.deployments.get(`dpl_${shortId}`)
  if (!d) return undefined
  const title = `${d.name} · ${d.readyState}`
  return htmlResponse(
    200,
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · Vercel sandbox</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}dt{font-weight:600}</style></head>
<body><p>Vercel sandbox · deployment inspector</p>
<h1>${escapeHtml(d.name)}</h1>
<dl><dt>Deployment</dt><dd>${escapeHtml(d.id)}</dd><dt>State</dt><dd>${escapeHtml(d.readyState)}</dd>
<dt>Environment</dt><dd>${escapeHtml(d.target ?? 'preview')}</dd><dt>URL</dt><dd>${escapeHtml(d.url)}</dd>
<dt>Created</dt><dd>${new Date(d.createdAt).toISOString()}</dd></dl>
</body></html>
`,
  )
}
