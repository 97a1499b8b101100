import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createLogger } from './log.ts'

function capture() {
  const lines: string[] = []
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk))
      callback()
    },
  })
  return { logger: createLogger('info', destination as any), lines }
}

describe('log redaction', () => {
  it.each([
    'token',
    'access_token',
    'refresh_token',
    'client_secret',
    'password',
    'authorization',
    'credentials',
  ])('masks %s at the top of a log object and one level down', (name) => {
    const { logger, lines } = capture()
    logger.info({ [name]: 'top-secret-1', nested: { [name]: 'top-secret-2' } }, 'something happened')
    expect(lines.join('')).not.toContain('top-secret')
    expect(lines.join('')).toContain('[redacted]')
  })

  it('masks one-time codes in the URL of a request', () => {
    const { logger, lines } = capture()
    logger.info(
      { req: { method: 'GET', url: '/v1/oauth/callback?code=abc123&state=xyz789', ip: '127.0.0.1' } },
      'request',
    )
    expect(lines.join('')).not.toMatch(/abc123|xyz789/)
  })
})

describe('query strings in logged URLs pass an allow-list', () => {
  it.each([
    [
      'OAuth 1.0a callback secrets',
      '/oauth/callback?state=s3cr3t-state&oauth_token=tok-123456&oauth_verifier=ver-654321',
      '/oauth/callback?state=[redacted]&oauth_token=[redacted]&oauth_verifier=[redacted]',
    ],
    [
      'OAuth 2.0 callback secrets',
      '/oauth/callback?code=abc123&state=xyz789',
      '/oauth/callback?code=[redacted]&state=[redacted]',
    ],
    [
      'a parameter no one listed',
      '/v1/platforms/trello/credential-help?key=k3y-value&x-token=t0k',
      '/v1/platforms/trello/credential-help?key=[redacted]&x-token=[redacted]',
    ],
    ['a bare word', '/v1/tools?0123456789abcdef', '/v1/tools?[redacted]'],
    ['a long name', `/v1/tools?${'a'.repeat(65)}=1`, '/v1/tools?[redacted]=[redacted]'],
    [
      'harmless parameters, kept',
      '/v1/tools?q=ticket&platform=zendesk',
      '/v1/tools?q=ticket&platform=zendesk',
    ],
    [
      'an encoded harmless name, kept',
      '/integrations?connecte%64=int_1&oauth_problem=user_refused',
      '/integrations?connecte%64=int_1&oauth_problem=user_refused',
    ],
    ['a connect token in the path', '/oauth/start/ct_secret?x=1', '/oauth/start/[redacted]?x=[redacted]'],
    ['an intake address (its token is a bearer)', '/hooks/AbCdEf0123456789xyzw', '/hooks/[redacted]'],
  ])('%s', (_label, url, logged) => {
    const { logger, lines } = capture()
    logger.info({ req: { method: 'GET', url, ip: '127.0.0.1' } }, 'request')
    expect(JSON.parse(lines[0]).req.url).toBe(logged)
  })
})
