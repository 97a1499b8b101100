import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { LocalChangeFeed } from '../store/changes.ts'
import type { Db } from '../store/database.ts'
import { ROUTE_TTL_MS, TriggerRoutes, type Route } from './routes.ts'

const route: Route = {
  hook: {
    id: 'wh_1',
    user_id: 'usr_1',
    platform: 'vercel',
    integration_id: 'int_1',
    token: 'tok_1',
    secret: null,
    status: 'active',
  },
  integration: null,
  plan: 'free',
  subscriptions: [],
}

/** Routes whose reads from the store are counted instead of made (the store is never touched). */
function countedRoutes() {
  const routes = new TriggerRoutes({} as Db, new LocalChangeFeed())
  const reads = vi
    .spyOn(routes as unknown as { load(token: string): Promise<Route | undefined> }, 'load')
    .mockImplementation(async () => route)
  return { routes, reads }
}

describe('trigger routes', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('reads a route in use again at half its life, before a delivery finds it nearly expired', async () => {
    const { routes, reads } = countedRoutes()
    await routes.byToken('tok_1')
    await vi.advanceTimersByTimeAsync(100)
    await routes.byToken('tok_1') // a delivery: the route is in use
    expect(reads).toHaveBeenCalledTimes(1)

    // No delivery comes at half its life; the route is read again all the same, with half its life
    // left for the read, so the next delivery (at 1.95 s of the first read) is served the new one.
    await vi.advanceTimersByTimeAsync(ROUTE_TTL_MS / 2 - 100)
    expect(reads).toHaveBeenCalledTimes(2)
    await vi.advanceTimersByTimeAsync(ROUTE_TTL_MS / 2 - 50)
    await routes.byToken('tok_1')
    expect(reads).toHaveBeenCalledTimes(2)
  })

  it('leaves a route nobody asked for since its read to expire, without reading it again', async () => {
    const { routes, reads } = countedRoutes()
    await routes.byToken('tok_1')
    await vi.advanceTimersByTimeAsync(ROUTE_TTL_MS * 3)
    expect(reads).toHaveBeenCalledTimes(1)
  })

  it('does not read ahead a route dropped by an announced change', async () => {
    const { routes, reads } = countedRoutes()
    await routes.byToken('tok_1')
    await routes.byToken('tok_1')
    await routes.changed()
    await vi.advanceTimersByTimeAsync(ROUTE_TTL_MS)
    expect(reads).toHaveBeenCalledTimes(1)
  })
})
