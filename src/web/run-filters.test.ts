import { describe, expect, it } from 'vitest'
import type { Run } from './agents-api.ts'
import { filtersFromSearch, filtersToPath, mergeRuns, runQueryOf } from './run-filters.ts'
import { formatDuration, inputsPreview, runDuration, startedByText, timeAgo } from './run-format.ts'
import { agentPath, matchRoute, runPath } from './routes.ts'

describe('run filters in the address bar', () => {
  it('reads known filters and ignores the rest', () => {
    expect(filtersFromSearch('?agent=a1&status=failed&trigger=trello.new_card&range=day&x=1')).toEqual({
      agent: 'a1',
      status: 'failed',
      trigger: 'trello.new_card',
      range: 'day',
    })
    expect(filtersFromSearch('?status=exploded&range=year')).toEqual({})
  })

  it('writes them back, dropping empty ones', () => {
    expect(filtersToPath('/runs', { status: 'running', range: 'hour' })).toBe(
      '/runs?status=running&range=hour',
    )
    expect(filtersToPath('/runs', {})).toBe('/runs')
    const round = filtersFromSearch(
      filtersToPath('/runs', { agent: 'a b', trigger: 't' }).slice('/runs'.length),
    )
    expect(round).toEqual({ agent: 'a b', trigger: 't' })
  })

  it('turns them into the REST query, the range counted back from now', () => {
    const now = Date.parse('2026-11-23T12:00:00Z')
    expect(runQueryOf({ agent: 'a1', status: 'failed', trigger: 't1', range: 'hour' }, now)).toEqual({
      agent_id: 'a1',
      status: 'failed',
      trigger_id: 't1',
      since: '2026-11-23T11:00:00.000Z',
    })
    expect(runQueryOf({ range: 'week' }, now).since).toBe('2026-11-16T12:00:00.000Z')
  })
})

const run = (id: string, status: Run['status'] = 'running'): Run =>
  ({
    id,
    status,
    agent_id: 'a',
    agent_name: 'A',
    agent_version: 1,
    started_by: 'person',
    subscription_id: null,
    trigger_id: null,
    test: false,
    rerun_of: null,
    inputs: {},
    event: null,
    result: null,
    error: null,
    created_at: '',
    started_at: null,
    finished_at: null,
    duration_ms: null,
  }) as Run

describe('mergeRuns', () => {
  it('adds new runs on top and updates the shown ones in place', () => {
    const merged = mergeRuns(
      [run('b'), run('c'), run('old', 'succeeded')],
      [run('a'), run('b', 'succeeded'), run('c', 'failed')],
    )
    expect(merged.map((r) => `${r.id}:${r.status}`)).toEqual([
      'a:running',
      'b:succeeded',
      'c:failed',
      'old:succeeded',
    ])
  })
})

describe('run formatting', () => {
  it('says durations as people do', () => {
    expect(formatDuration(850)).toBe('850 ms')
    expect(formatDuration(4200)).toBe('4.2 s')
    expect(formatDuration(42_000)).toBe('42 s')
    expect(formatDuration(185_000)).toBe('3 min 5 s')
    expect(formatDuration(7_380_000)).toBe('2 h 3 min')
    expect(formatDuration(null)).toBe('')
  })

  it('counts a running run’s time so far', () => {
    expect(
      runDuration(
        { duration_ms: null, started_at: '2026-01-01T00:00:00Z', finished_at: null },
        Date.parse('2026-01-01T00:00:02Z'),
      ),
    ).toBe(2000)
    expect(runDuration({ duration_ms: 5, started_at: null, finished_at: null }, 0)).toBe(5)
  })

  it('names who started a run', () => {
    expect(startedByText({ started_by: 'trigger', trigger_id: 't' }, 'New Card')).toBe('New Card')
    expect(startedByText({ started_by: 'person', trigger_id: null })).toBe('You, by hand')
    expect(startedByText({ started_by: 'api', trigger_id: null })).toBe('API')
    expect(startedByText({ started_by: 'rerun', trigger_id: null })).toBe('Rerun')
  })

  it('sums up inputs in a few recognisable words', () => {
    expect(
      inputsPreview({
        card_id: '6b04a2f31985698d23000004',
        title: 'Plan  the\nlaunch',
        n: 3,
        flag: true,
        obj: { a: 1 },
      }),
    ).toBe('Plan the launch · 3')
    expect(inputsPreview({ a: 'x'.repeat(100) })).toHaveLength(70)
    expect(inputsPreview(null)).toBe('')
  })

  it('says how long ago', () => {
    const now = Date.parse('2026-01-02T00:00:00Z')
    expect(timeAgo('2026-01-01T23:59:50Z', now)).toBe('just now')
    expect(timeAgo('2026-01-01T23:30:00Z', now)).toBe('30 min ago')
    expect(timeAgo('2025-12-28T00:00:00Z', now)).toBe('5 days ago')
  })
})

describe('routes', () => {
  it('matches the agents’ and runs’ addresses', () => {
    expect(matchRoute('/agents')).toEqual({ page: 'agents' })
    expect(matchRoute('/agents/new')).toEqual({ page: 'agent-new' })
    expect(matchRoute('/agents/ag_1')).toEqual({ page: 'agent', id: 'ag_1', tab: 'overview' })
    expect(matchRoute('/agents/ag_1/triggers')).toEqual({ page: 'agent', id: 'ag_1', tab: 'triggers' })
    expect(matchRoute('/agents/ag_1/edit')).toEqual({ page: 'agent-edit', id: 'ag_1' })
    expect(matchRoute('/agents/ag_1/nope')).toBeNull()
    expect(matchRoute('/runs/r%201')).toEqual({ page: 'run', id: 'r 1' })
    expect(matchRoute('/runs/%E0%A4%A')).toBeNull()
    expect(matchRoute('/tools')).toBeNull()
    expect(agentPath('a/b', 'runs')).toBe('/agents/a%2Fb/runs')
    expect(runPath('r1')).toBe('/runs/r1')
  })
})
