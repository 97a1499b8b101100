import { describe, expect, it } from 'vitest'
import { Agents } from '../../src/core/agents/agents.ts'
import { Integrations } from '../../src/core/connections/integrations.ts'
import type { Store } from '../../src/core/store/database.ts'
import { ToolRegistry } from '../../src/core/tools/catalog.ts'
import { platforms } from '../../src/platforms/index.ts'
import { STORES } from '../helpers/engine.ts'
import type { SeededStore } from '../helpers/many-subscriptions.ts'
import { seededStoreForSuite } from '../helpers/seeded-store.ts'

// Issue 22, §7: the runs list's agent filter (src/web/agent-filter.ts) asks GET /v1/agents?q=&limit=
// for one page of the agents whose name holds what was typed, in any case, among 1,000 agents,
// instead of reading every page of the list. The agents' names are their rows' own (`agents.name`).

describe.each(STORES)('searching agents by name on $name', ({ open }) => {
  let store: Store
  let seed: SeededStore
  seededStoreForSuite(open, 'agent_search', (seeded) => ({ store, seed } = seeded))
  const agents = () =>
    new Agents(store.db, new ToolRegistry(platforms), new Integrations(store.db), {} as never)

  it('finds the agents whose name holds the words, ignoring case, one short page at a time', async () => {
    const first = await agents().page(seed.userId, { q: 'AGENT 60', limit: '5' })
    expect(first.agents).toHaveLength(5)
    expect(first.next_cursor).not.toBeNull()
    const rest = await agents().page(seed.userId, { q: 'AGENT 60', limit: '50', cursor: first.next_cursor })
    expect(rest.next_cursor).toBeNull()
    const ids = [...first.agents, ...rest.agents].map((a) => a.id).sort()
    // Every word anywhere in the name: "agent 60", "agent 160", "agent 600"… but not "agent 6".
    const holding60 = Array.from({ length: 1000 }, (_, i) => i + 1).filter((i) => String(i).includes('60'))
    expect(ids).toEqual(holding60.map((i) => `big_agt_${i}`).sort())
  })

  it('finds nothing, on one page, for words no name holds', async () => {
    expect(await agents().page(seed.userId, { q: 'agent zzz', limit: '20' })).toEqual({
      agents: [],
      next_cursor: null,
    })
  })
})
