import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import { registerDrainOnClose } from './drain-on-close.ts'

// docs/scaling.md, "Stopping an instance". Without the drain, close() waited on the answered
// connection for Fastify's keep-alive timeout (72 s), past this test's own timeout.
describe('stopping the server', () => {
  it('ends once the request in progress is answered, its keep-alive connection closed with it', async () => {
    const app = Fastify()
    registerDrainOnClose(app)
    let started!: () => void
    const inProgress = new Promise<void>((resolve) => (started = resolve))
    let answer!: () => void
    app.get('/slow', async () => {
      started()
      await new Promise<void>((resolve) => (answer = resolve))
      return { ok: true }
    })
    let stopBegun!: () => void
    const stopping = new Promise<void>((resolve) => (stopBegun = resolve))
    app.addHook('preClose', async () => stopBegun()) // runs after the drain's own
    app.get('/fast', async () => ({ ok: true }))
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as { port: number }
    const url = (path: string) => `http://127.0.0.1:${port}${path}`

    expect((await fetch(url('/fast'))).headers.get('connection')).toBe('keep-alive') // not closing yet
    const response = fetch(url('/slow'))
    await inProgress
    const closed = app.close()
    await stopping
    answer()
    const answered = await response
    expect(await answered.json()).toEqual({ ok: true })
    expect(answered.headers.get('connection')).toBe('close')
    await closed
    expect(app.server.listening).toBe(false)
  }, 20_000)
})
