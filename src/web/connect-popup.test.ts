import { describe, expect, it, vi } from 'vitest'
import {
  buildConnectResultMessage,
  CONNECT_RESULT_TYPE,
  connectResultFromEvent,
  connectResultPath,
  isTrustedOrigin,
  parseConnectResultMessage,
  relayConnectResultToOpener,
  sameOriginOpener,
} from './connect-popup.ts'
import { parseConnectResult } from './url-state.ts'

const ORIGIN = 'http://127.0.0.1:4100'
const q = (params: Record<string, string>) => `?${new URLSearchParams(params)}`

describe('buildConnectResultMessage', () => {
  it('carries a successful connection', () => {
    expect(buildConnectResultMessage('?connected=int_1')).toEqual({
      type: CONNECT_RESULT_TYPE,
      connected: 'int_1',
    })
  })

  it('carries an error with its code, rules and the indexes that apply, as the callback sends them', () => {
    const search = q({
      error: 'Access was denied',
      code: 'connect_failed',
      troubleshooting: '["Press Allow","Pick the team"]',
      applies: '[0, 5, "x"]',
    })
    expect(buildConnectResultMessage(search)).toEqual({
      type: CONNECT_RESULT_TYPE,
      error: 'Access was denied',
      code: 'connect_failed',
      troubleshooting: ['Press Allow', 'Pick the team'],
      applies: [0],
    })
  })

  it('has nothing to send without a result', () => {
    expect(buildConnectResultMessage('')).toBeNull()
    expect(buildConnectResultMessage('?connected=')).toBeNull()
    expect(buildConnectResultMessage('?q=vercel')).toBeNull()
  })

  it('still sends an empty error', () => {
    expect(buildConnectResultMessage('?error=')).toEqual({
      type: CONNECT_RESULT_TYPE,
      error: '',
      troubleshooting: [],
      applies: [],
    })
  })
})

describe('parseConnectResultMessage', () => {
  it('accepts what buildConnectResultMessage builds, after structured cloning', () => {
    for (const search of [
      '?connected=int_9',
      q({ error: 'denied', code: 'connect_failed', troubleshooting: '["a","b"]', applies: '[1]' }),
    ]) {
      const built = buildConnectResultMessage(search)
      expect(parseConnectResultMessage(structuredClone(built))).toEqual(built)
    }
  })

  it.each([
    null,
    undefined,
    'switchyard:connect-result',
    42,
    [],
    {},
    { type: 'other', connected: 'x' },
    { type: CONNECT_RESULT_TYPE },
    { type: CONNECT_RESULT_TYPE, connected: 7 },
  ])('ignores %j', (data) => {
    expect(parseConnectResultMessage(data)).toBeNull()
  })

  it('keeps only well-typed members', () => {
    const data = {
      type: CONNECT_RESULT_TYPE,
      error: 'nope',
      code: 3,
      troubleshooting: ['a', 1, '', 'b', null],
      applies: [0, 1, 2, -1, 1.5, '0'],
      extra: '<script>',
    }
    expect(parseConnectResultMessage(data)).toEqual({
      type: CONNECT_RESULT_TYPE,
      error: 'nope',
      troubleshooting: ['a', 'b'],
      applies: [0, 1],
    })
  })

  it('caps what it keeps', () => {
    const parsed = parseConnectResultMessage({
      type: CONNECT_RESULT_TYPE,
      error: 'x'.repeat(10_000),
      troubleshooting: Array.from({ length: 500 }, (_, i) => `rule ${i}`),
    })
    expect(parsed?.error?.length).toBe(4000)
    expect(parsed?.troubleshooting?.length).toBe(50)
  })
})

describe('origin checks', () => {
  it('believes only the own origin', () => {
    expect(isTrustedOrigin(ORIGIN, ORIGIN)).toBe(true)
    expect(isTrustedOrigin('http://127.0.0.1:41000', ORIGIN)).toBe(false) // one port prefixing another
    expect(isTrustedOrigin('http://127.0.0.1:4100.evil.test', ORIGIN)).toBe(false)
    expect(isTrustedOrigin('https://127.0.0.1:4100', ORIGIN)).toBe(false)
    expect(isTrustedOrigin('null', 'null')).toBe(false) // sandboxed frames and file: pages
    expect(isTrustedOrigin('', '')).toBe(false)
  })

  it('reads a result only from a same-origin event', () => {
    const data = { type: CONNECT_RESULT_TYPE, connected: 'int_1' }
    expect(connectResultFromEvent({ origin: ORIGIN, data }, ORIGIN)).toEqual(data)
    expect(connectResultFromEvent({ origin: 'https://vercel.com', data }, ORIGIN)).toBeNull()
    expect(connectResultFromEvent({ origin: ORIGIN, data: { type: 'webpackHotUpdate' } }, ORIGIN)).toBeNull()
  })
})

describe('connectResultPath', () => {
  it('lands where the redirect flow lands, so the page shows the same banner', () => {
    expect(connectResultPath({ type: CONNECT_RESULT_TYPE, connected: 'int 1' })).toBe(
      '/integrations?connected=int+1',
    )
    const search = q({
      error: 'Access was denied',
      code: 'connect_failed',
      troubleshooting: '["a","b"]',
      applies: '[1]',
    })
    const path = connectResultPath(buildConnectResultMessage(search)!)
    expect(path.startsWith('/integrations?')).toBe(true)
    expect(parseConnectResult(path.slice('/integrations'.length))).toEqual(parseConnectResult(search))
  })

  it('keeps an empty error an error', () => {
    const path = connectResultPath({ type: CONNECT_RESULT_TYPE, error: '' })
    expect(parseConnectResult(path.slice('/integrations'.length)).error?.message).toBe(
      'The connection was not completed.',
    )
  })

  it('prefers the error when both are present', () => {
    const path = connectResultPath({ type: CONNECT_RESULT_TYPE, connected: 'int_1', error: 'denied' })
    expect(new URLSearchParams(path.split('?')[1]).get('connected')).toBeNull()
  })
})

function fakeOpener(origin: string | (() => string), closed = false) {
  return {
    closed,
    get location() {
      return {
        get origin() {
          return typeof origin === 'function' ? origin() : origin
        },
      }
    },
    postMessage: vi.fn(),
  }
}

describe('sameOriginOpener', () => {
  it('finds a same-origin opener', () => {
    const opener = fakeOpener(ORIGIN)
    expect(sameOriginOpener({ opener }, ORIGIN)).toBe(opener)
  })

  it('refuses none, a closed one and another origin (whose location cannot even be read)', () => {
    expect(sameOriginOpener({ opener: null }, ORIGIN)).toBeNull()
    expect(sameOriginOpener({ opener: fakeOpener(ORIGIN, true) }, ORIGIN)).toBeNull()
    expect(sameOriginOpener({ opener: fakeOpener('https://vercel.com') }, ORIGIN)).toBeNull()
    const crossOrigin = fakeOpener(() => {
      throw new DOMException('Blocked a frame from accessing a cross-origin frame.', 'SecurityError')
    })
    expect(sameOriginOpener({ opener: crossOrigin }, ORIGIN)).toBeNull()
  })
})

describe('relayConnectResultToOpener', () => {
  const win = (search: string, opener: unknown, pathname = '/integrations') => ({
    location: { origin: ORIGIN, pathname, search },
    opener,
    close: vi.fn(),
  })

  it('posts the result to the opener, for its origin only, and closes the pop-up', () => {
    const opener = fakeOpener(ORIGIN)
    const w = win('?connected=int_1', opener)
    expect(relayConnectResultToOpener(w)).toBe(true)
    expect(opener.postMessage).toHaveBeenCalledWith({ type: CONNECT_RESULT_TYPE, connected: 'int_1' }, ORIGIN)
    expect(w.close).toHaveBeenCalled()
  })

  it('relays errors with their rules', () => {
    const opener = fakeOpener(ORIGIN)
    relayConnectResultToOpener(
      win(q({ error: 'denied', code: 'connect_failed', troubleshooting: '["a"]', applies: '[0]' }), opener),
    )
    expect(opener.postMessage.mock.calls[0][0]).toEqual({
      type: CONNECT_RESULT_TYPE,
      error: 'denied',
      code: 'connect_failed',
      troubleshooting: ['a'],
      applies: [0],
    })
  })

  it('leaves the window alone without a same-origin opener, a result, or on another page', () => {
    const cases = [
      win('?connected=int_1', null), // the same-tab flow
      win('?connected=int_1', fakeOpener('https://example.com')),
      win('', fakeOpener(ORIGIN)),
      win('?connected=int_1', fakeOpener(ORIGIN), '/tools'),
    ]
    for (const w of cases) {
      expect(relayConnectResultToOpener(w)).toBe(false)
      expect(w.close).not.toHaveBeenCalled()
    }
  })
})
