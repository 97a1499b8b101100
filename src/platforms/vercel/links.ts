const API_BASE = 'https://api.vercel.com'
const WEB_BASE = 'https://vercel.com'

/**
 * A deployment's inspector page. Vercel answers it on vercel.com; it is rebased onto the
 * integration's base URL so that a sandbox's deployments link to the sandbox.
 */
export function inspectorUrl(baseUrl: string, deployment: Record<string, unknown>): string | undefined {
  if (typeof deployment.inspectorUrl !== 'string') return undefined
  try {
    const url = new URL(deployment.inspectorUrl)
    return `${baseUrl === API_BASE ? WEB_BASE : baseUrl}${url.pathname}`
  } catch {
    return undefined
  }
}

export { plural } from '../../core/tools/plural.ts'

/** "ada-blog (preview, BUILDING)". */
export function deploymentLabel(d: {
  name: string
  target?: string | null
  readyState?: string
  state?: string
}): string {
  const state = d.readyState ?? d.state
  return `${d.name} (${d.target ?? 'preview'}${state ? `, ${state}` : ''})`
}
