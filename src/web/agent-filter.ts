import type { Agent } from './agents-api.ts'
import { MORE_TEXT } from './integration-picker.ts'
import type { SearchOption } from './components/SearchSelect.tsx'

/**
 * The runs list's agent filter asks the server for one short page of agents, searched by words of
 * their name (GET /v1/agents?q=&limit=), instead of following every cursor of the list: with
 * thousands of agents that was thousands of requests before the runs page could filter (issue 22,
 * §7). The agent the address names (`/runs?agent=<id>`) is read by id, so it shows by its name.
 */
export const AGENT_FILTER_LIMIT = 20

export interface AgentFilterSource {
  /** One page: GET /v1/agents?q=&limit= */
  page: (params: { q?: string; limit: number }) => Promise<{ agents: Agent[]; next_cursor: string | null }>
  /** One agent by id: GET /v1/agents/{id} (rejects when there is none). */
  get: (id: string) => Promise<Agent>
}

export interface AgentChoices {
  agents: Array<Pick<Agent, 'id' | 'name'>>
  more: boolean
}

/** One page of the agents matching the search; never a second page. */
export async function loadAgentChoices(source: AgentFilterSource, q: string): Promise<AgentChoices> {
  const words = q.trim()
  const page = await source.page({ ...(words ? { q: words } : {}), limit: AGENT_FILTER_LIMIT })
  return { agents: page.agents, more: page.next_cursor !== null }
}

/** The chosen agent's id and name, or null when there is no such agent (deleted, someone else's). */
export async function resolveChosenAgent(
  source: AgentFilterSource,
  id: string | undefined,
): Promise<Pick<Agent, 'id' | 'name'> | null> {
  if (!id) return null
  const agent = await source.get(id).catch(() => null)
  return agent && { id: agent.id, name: agent.name }
}

/** Said for an agent the address names that cannot be read. */
export const UNKNOWN_AGENT = 'An agent you no longer have'
export const ALL_AGENTS = 'All agents'

/**
 * What the filter lists: while nothing is typed, "All agents" and the chosen agent (kept when the
 * page does not hold it, so it always shows by its name); then the page, and a note when there are more.
 */
export function agentFilterOptions(
  page: AgentChoices,
  chosenId: string | undefined,
  /** Undefined while it is being read. */
  chosen: Pick<Agent, 'id' | 'name'> | null | undefined,
  searching: boolean,
): { options: SearchOption[]; note?: string } {
  const options: SearchOption[] = []
  if (!searching) {
    options.push({ value: '', label: ALL_AGENTS })
    if (chosenId && !page.agents.some((a) => a.id === chosenId))
      options.push({
        value: chosenId,
        label: chosen === undefined ? 'Loading…' : chosen?.id === chosenId ? chosen.name : UNKNOWN_AGENT,
      })
  }
  for (const a of page.agents) options.push({ value: a.id, label: a.name })
  return { options, note: page.more ? MORE_TEXT : undefined }
}
