import { describe, expect, it } from 'vitest'
import type { Integration } from './api.ts'
import { matchesQuery } from './components/SearchSelect.tsx'
import { integrationsFor } from './components/StepEditor.tsx'

describe('matchesQuery', () => {
  const option = { value: 'trello.add_comment_to_card', label: 'Add Comment to Card', group: 'Trello' }
  it('needs every word somewhere in the label, group or id, in any case', () => {
    expect(matchesQuery(option, 'comment card')).toBe(true)
    expect(matchesQuery(option, 'TRELLO add')).toBe(true)
    expect(matchesQuery(option, 'add_comment')).toBe(true)
    expect(matchesQuery(option, 'comment ticket')).toBe(false)
    expect(matchesQuery(option, '   ')).toBe(true)
  })
})

describe('integrationsFor', () => {
  const integration = (id: string, platform: string, status: string) =>
    ({ id, platform, status, account_name: id }) as Integration
  it('keeps the platform’s integrations, usable ones first, disconnected ones last', () => {
    const all = [
      integration('a', 'trello', 'disconnected'),
      integration('b', 'zendesk', 'active'),
      integration('c', 'trello', 'active'),
      integration('d', 'trello', 'needs_reconnection'),
    ]
    expect(integrationsFor(all, 'trello').map((i) => i.id)).toEqual(['c', 'd', 'a'])
    expect(integrationsFor(all, undefined)).toEqual([])
  })
})
