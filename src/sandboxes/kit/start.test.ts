import type { FastifyPluginAsync } from 'fastify'
import { describe, expect, it } from 'vitest'
import { serveSandboxes } from './start.ts'

// The sandboxes' server stops like the service (docs/scaling.md, "Stopping an instance"): without
// src/serving/drain-on-close.ts, close() waited on the answered keep-alive connection for Fastify's
// keep-alive timeout (72 s), past this test's own timeout.
describe("stopping the sandboxes' server", () => {
  it('ends once the request in progress is answered, its keep-alive connection closed with it', async () => {
    let started!: () => void
    const inProgress = new Promise<void>((resolve) => (started = resolve))
    let answer!: () => void
    let stopBegun!: () => void
    const stopping = new Promise<void>((resolve) => (stopBegun = resolve))
    const plugin: FastifyPluginAsync = async (app) => {
      app.addHook('preClose', async () => stopBegun()) // runs after the drain's own, registered first
      app.get('/slow', async () => {
        started()
        await new Promise<void>((resolve) => (answer = resolve))
        return { ok: true }
      })
      app.get('/fast', async () => ({ ok: true }))
    }
    const served = await serveSandboxes([{ prefix: '/emulated', plugin }])
    const url = (path: string) => `${served.origin}/emulated${path}`

    expect((await fetch(url('/fast'))).headers.get('connection')).toBe('keep-alive') // not closing yet
    const response = fetch(url('/slow'))
    await inProgress
    const closed = served.close()
    await stopping
    answer()
    const answered = await response
    expect(await answered.json()).toEqual({ ok: true })
    expect(answered.headers.get('connection')).toBe('close')
    await closed
    expect(served.app.server.listening).toBe(false)
  }, 20_000)
})
