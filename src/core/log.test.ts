import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createLogger } from './log.ts'

function capture() {
  const lines: string[] = []
  const destination = new Writable({ write(chunk, _encoding, callback) { lines.push(String(chunk)); callback() } })
  return { logger: createLogger('info', destination as any), lines }
}

describe('log redaction', () => {
  it.each(['token', 'access_token', 'refresh_token', 'client_secret', 'password', 'authorization', 'credentials'])(
    'masks %s at the top of a log object and one level down',
    (name) => {
      const { logger, lines } = capture()
      logger.info({ [name]: 'top-secret-1', nested: { [name]: 'top-secret-2' } }, 'something happened')
      expect(lines.join('')).not.toContain('top-secret')
      expect(lines.join('')).toContain('[redacted]')
    },
  )

  it('masks one-time codes in the URL of a request', () => {
    const { logger, lines } = capture()
    logger.info({ req: { method: 'GET', url: '/v1/oauth/callback?code=abc123&state=xyz789', ip: '127.0.0.1' } }, 'request')
    expect(lines.join('')).not.toMatch(/abc123|xyz789/)
  })
})
