import { useEffect, useState } from 'react'
import {
  agentFilterOptions,
  loadAgentChoices,
  resolveChosenAgent,
  type AgentChoices,
  type AgentFilterSource,
} from '../agent-filter.ts'
import { agentsApi, type Agent } from '../agents-api.ts'
import { SearchSelect } from './SearchSelect.tsx'

const source: AgentFilterSource = {
  page: (params) => agentsApi.page(params),
  get: (id) => agentsApi.get(id),
}
const SEARCH_DELAY_MS = 250

interface Props {
  id: string
  /** The chosen agent's id, from the address; undefined for all agents. */
  value: string | undefined
  onChange: (id: string | undefined) => void
}

/**
 * The runs list's agent filter: a search box over one page of agents the server finds by words of
 * their name (agent-filter.ts), never the whole list.
 */
export function AgentFilter({ id, value, onChange }: Props) {
  const [q, setQ] = useState('')
  const [page, setPage] = useState<AgentChoices | null>(null)
  const [chosen, setChosen] = useState<Pick<Agent, 'id' | 'name'> | null | undefined>(undefined)

  useEffect(() => {
    let live = true
    const wait = setTimeout(
      () =>
        loadAgentChoices(source, q).then(
          (found) => live && setPage(found),
          () => live && setPage({ agents: [], more: false }),
        ),
      q ? SEARCH_DELAY_MS : 0,
    )
    return () => {
      live = false
      clearTimeout(wait)
    }
  }, [q])

  useEffect(() => {
    let live = true
    if (chosen?.id === value) return
    // An agent the page already holds needs no read of its own.
    const known = page?.agents.find((a) => a.id === value)
    if (known) return setChosen(known)
    setChosen(undefined)
    resolveChosenAgent(source, value).then((found) => live && setChosen(found))
    return () => {
      live = false
    }
  }, [value])

  const { options, note } = agentFilterOptions(page ?? { agents: [], more: false }, value, chosen, q !== '')
  return (
    <SearchSelect
      id={id}
      name="agent"
      options={options}
      value={value ?? ''}
      onChange={(v) => onChange(v || undefined)}
      placeholder="Search agents by name"
      searched={{ onQuery: setQ, note: page === null ? 'Loading agents…' : note }}
    />
  )
}
