import { describe, expect, it } from 'vitest'
import {
  AGENT_FILTER_LIMIT,
  agentFilterOptions,
  ALL_AGENTS,
  loadAgentChoices,
  UNKNOWN_AGENT,
  type AgentFilterSource,
} from './agent-filter.ts'
import type { Agent } from './agents-api.ts'
import { MORE_TEXT } from './integration-picker.ts'

const agent = (id: string) => ({ id, name: `Agent ${id}` }) as Agent

describe('the runs list’s agent filter', () => {
  it('asks for one page of at most AGENT_FILTER_LIMIT agents, searched by what was typed, and never a second', async () => {
    const asked: unknown[] = []
    const source: AgentFilterSource = {
      page: async (params) => {
        asked.push(params)
        return { agents: [agent('a')], next_cursor: 'more' }
      },
      get: async () => agent('a'),
    }
    expect(await loadAgentChoices(source, '  filer ')).toEqual({ agents: [agent('a')], more: true })
    expect(await loadAgentChoices(source, '')).toEqual({ agents: [agent('a')], more: true })
    expect(asked).toEqual([{ q: 'filer', limit: AGENT_FILTER_LIMIT }, { limit: AGENT_FILTER_LIMIT }])
  })

  it('keeps the chosen agent by its name when the page does not hold it, and says when there are more', () => {
    const page = { agents: [agent('a'), agent('b')], more: true }
    const { options, note } = agentFilterOptions(page, 'z', { id: 'z', name: 'Zed' }, false)
    expect(options.map((o) => o.label)).toEqual([ALL_AGENTS, 'Zed', 'Agent a', 'Agent b'])
    expect(note).toBe(MORE_TEXT)
    // Not read yet, then gone: never its id.
    expect(agentFilterOptions(page, 'z', undefined, false).options[1]!.label).toBe('Loading…')
    expect(agentFilterOptions(page, 'z', null, false).options[1]!.label).toBe(UNKNOWN_AGENT)
    // While searching, only the server's matches.
    expect(agentFilterOptions({ agents: [agent('b')], more: false }, 'z', null, true)).toEqual({
      options: [{ value: 'b', label: 'Agent b' }],
      note: undefined,
    })
  })
})
