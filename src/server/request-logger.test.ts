import { Writable } from 'node:stream'
import { describe, expect, it, vi } from 'vitest'
import { createLogger } from '../core/log.ts'
import { lazyChildLogger } from './request-logger.ts'

function capture() {
  const lines: string[] = []
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk))
      callback()
    },
  })
  return { parent: createLogger('info', destination as any), lines }
}

describe('lazyChildLogger', () => {
  it('builds no child until the request logs', () => {
    const { parent } = capture()
    const child = vi.spyOn(parent, 'child')
    lazyChildLogger(parent, { reqId: 'req-1' }, {})
    expect(child).not.toHaveBeenCalled()
  })

  it('writes lines as the child would: with the bindings, and secrets masked', () => {
    const { parent, lines } = capture()
    const child = vi.spyOn(parent, 'child')
    const log = lazyChildLogger(parent, { reqId: 'req-1' }, {})
    log.error({ err: new Error('boom'), token: 'top-secret' }, 'unhandled error')
    log.warn('again')
    expect(child).toHaveBeenCalledTimes(1)
    expect(lines).toHaveLength(2)
    const first = JSON.parse(lines[0])
    expect(first).toMatchObject({
      reqId: 'req-1',
      msg: 'unhandled error',
      token: '[redacted]',
      err: { message: 'boom' },
    })
    expect(lines.join('')).not.toContain('top-secret')
  })

  it('answers level checks and builds grandchildren from the same child', () => {
    const { parent, lines } = capture()
    const log = lazyChildLogger(parent, { reqId: 'req-2' }, {})
    expect(log.level).toBe('info')
    log.child({ step: 'x' }).info('nested')
    expect(JSON.parse(lines[0])).toMatchObject({ reqId: 'req-2', step: 'x', msg: 'nested' })
  })
})
