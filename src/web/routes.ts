// The agents' and runs' addresses (the other pages are plain paths in App.tsx).

export type AgentTab = 'overview' | 'triggers' | 'runs'

export type Route =
  | { page: 'agents' }
  | { page: 'agent-new' }
  | { page: 'agent'; id: string; tab: AgentTab }
  | { page: 'agent-edit'; id: string }
  | { page: 'runs' }
  | { page: 'run'; id: string }

const decode = (s: string) => {
  try {
    return decodeURIComponent(s)
  } catch {
    return null
  }
}

/** The route a path (without its query, trailing slash removed) names, or null for none of these. */
export function matchRoute(path: string): Route | null {
  const seg = path.split('/').filter(Boolean)
  if (seg[0] === 'agents') {
    if (seg.length === 1) return { page: 'agents' }
    if (seg.length === 2 && seg[1] === 'new') return { page: 'agent-new' }
    const id = decode(seg[1])
    if (!id) return null
    if (seg.length === 2) return { page: 'agent', id, tab: 'overview' }
    if (seg.length === 3 && (seg[2] === 'triggers' || seg[2] === 'runs'))
      return { page: 'agent', id, tab: seg[2] }
    if (seg.length === 3 && seg[2] === 'edit') return { page: 'agent-edit', id }
    return null
  }
  if (seg[0] === 'runs') {
    if (seg.length === 1) return { page: 'runs' }
    const id = seg.length === 2 ? decode(seg[1]) : null
    return id ? { page: 'run', id } : null
  }
  return null
}

const enc = encodeURIComponent
export const agentPath = (id: string, tab: AgentTab = 'overview') =>
  tab === 'overview' ? `/agents/${enc(id)}` : `/agents/${enc(id)}/${tab}`
export const agentEditPath = (id: string) => `/agents/${enc(id)}/edit`
export const runPath = (id: string) => `/runs/${enc(id)}`
