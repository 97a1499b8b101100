import { describe, expect, it } from 'vitest'
import { platforms } from '../../platforms/index.ts'
import { ToolRegistry } from './catalog.ts'

const registry = new ToolRegistry(platforms)

describe('catalogue', () => {
  it('lists every tool step with JSON Schemas for input and output', () => {
    const entries = registry.list()
    expect(entries.map((e) => e.id)).toEqual(
      expect.arrayContaining([
        'zendesk.create_ticket',
        'zendesk.get_ticket',
        'zendesk.list_tickets',
        'zendesk.search_tickets',
        'zendesk.update_ticket',
        'zendesk.delete_ticket',
        'zendesk.api_call',
      ]),
    )
    for (const entry of entries) {
      expect(entry.inputSchema.type).toBe('object')
      expect(entry.outputSchema.type).toBe('object')
      expect(['read', 'write', 'delete']).toContain(entry.effect)
    }
  })

  it('search by the platform kind finds every step of that platform', () => {
    const zendeskIds = registry
      .list()
      .filter((e) => e.platform === 'zendesk')
      .map((e) => e.id)
      .sort()
    expect(
      registry
        .search('ticketing')
        .map((e) => e.id)
        .sort(),
    ).toEqual(zendeskIds)
  })

  it.each([
    ['create ticket', 'zendesk.create_ticket'],
    ['zendesk delete', 'zendesk.delete_ticket'],
    ['internal note', 'zendesk.update_ticket'],
    ['zendesk API call', 'zendesk.api_call'],
    ['trello API call', 'trello.api_call'],
    ['move card', 'trello.update_card'],
    ['Search', 'zendesk.search_tickets'],
  ])('search %j ranks %s first', (query, first) => {
    expect(registry.search(query)[0]?.id).toBe(first)
  })

  it('search by the platform kind "board" finds every Trello step', () => {
    const trelloIds = registry
      .list()
      .filter((e) => e.platform === 'trello')
      .map((e) => e.id)
      .sort()
    expect(trelloIds.length).toBe(12)
    expect(
      registry
        .search('board')
        .map((e) => e.id)
        .sort(),
    ).toEqual(expect.arrayContaining(trelloIds))
  })

  it('the legacy Add Comment is marked legacy and ranks below Add Comment to Card', () => {
    const results = registry.search('add comment').map((e) => e.id)
    expect(registry.get('trello.add_comment')!.entry.legacy).toBe(true)
    expect(results.indexOf('trello.add_comment_to_card')).toBeLessThan(results.indexOf('trello.add_comment'))
  })

  it('every word must match somewhere', () => {
    expect(registry.search('ticket trello-only-word')).toEqual([])
  })
})
