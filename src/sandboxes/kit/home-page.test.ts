import { describe, expect, it } from 'vitest'
import { problemPage, refusalInWords } from './home-page.ts'
import { unreadableRefusal } from './test-support.ts'

// A refused sandbox form says why in words, with the way back (docs/sandbox.md "Home pages"): the
// platform API's own refusal is put in its words, never shown as the JSON it came as.

const json = (status: number, body: unknown) => ({ status, payload: JSON.stringify(body) })

describe('an API refusal in words', () => {
  it.each([
    [
      'Vercel',
      json(403, { error: { code: 'forbidden', message: 'Not authorized' } }),
      'Vercel refused it (403 Forbidden): Not authorized.',
    ],
    [
      'Zendesk',
      json(422, {
        error: 'RecordInvalid',
        description: 'Record validation errors',
        details: { requester: [{ description: 'Requester: is suspended', error: 'InvalidValue' }] },
      }),
      'Zendesk refused it (422 Unprocessable Entity): Record validation errors. Requester: is suspended.',
    ],
    [
      'Zendesk',
      json(403, { error: 'Forbidden', description: 'You do not have access to this page.' }),
      'Zendesk refused it (403 Forbidden): You do not have access to this page.',
    ],
    [
      'Zendesk',
      json(401, { error: 'Couldn’t authenticate you' }),
      'Zendesk refused it (401 Unauthorized): Couldn’t authenticate you.',
    ],
    [
      'Trello',
      { status: 401, payload: 'unauthorized card permission requested' },
      'Trello refused it (401 Unauthorized): unauthorized card permission requested.',
    ],
    [
      'Trello',
      json(400, { message: 'invalid value for idList', error: 'ERROR' }),
      'Trello refused it (400 Bad Request): invalid value for idList.',
    ],
    [
      'Trello',
      json(429, { error: 'API_TOKEN_LIMIT_EXCEEDED' }),
      'Trello refused it (429 Too Many Requests): api token limit exceeded.',
    ],
    [
      'Vercel',
      { status: 502, payload: '<html><body>Bad gateway</body></html>' },
      'Vercel refused it (502 Bad Gateway).',
    ],
    ['Vercel', { status: 500, payload: '' }, 'Vercel refused it (500 Internal Server Error).'],
  ] as const)('%s: %j', (platform, answer, words) => {
    expect(refusalInWords(platform, answer)).toBe(words)
  })

  it('never shows the JSON, whatever its shape', () => {
    const odd = json(409, { error: { code: 'conflict', nested: { id: 'dpl_1', state: { x: 1 } } } })
    const words = refusalInWords('Vercel', odd)
    expect(words).toBe('Vercel refused it (409 Conflict).')
  })
})

describe('the refusal page', () => {
  it('says nothing was changed and why, escaped, with the way back to the form’s page', async () => {
    const page = problemPage(
      403,
      'Vercel sandbox',
      'Ada <b>cannot</b> deploy "acme-web".',
      'http://127.0.0.1:1/vercel',
    )
    expect(page.status).toBe(403)
    expect(page.headers['content-type']).toMatch(/^text\/html/)
    const html = page.payload!
    expect(html).toContain('<h1>Nothing was changed</h1>')
    expect(html).toContain('Ada &lt;b&gt;cannot&lt;/b&gt; deploy &quot;acme-web&quot;.')
    expect(html).toContain('Back to the Vercel sandbox')
    expect(unreadableRefusal(html, 'http://127.0.0.1:1/vercel')).toEqual([])
  })

  it('is told apart from one that is not readable', () => {
    const raw = problemPage(
      404,
      'Vercel sandbox',
      '{"error":{"code":"not_found"}}',
      'http://x/vercel',
    ).payload!
    expect(unreadableRefusal(raw, 'http://x/vercel')).toContain(
      'the reason carries JSON: {"error":{"code":"not_found"}}',
    )
    expect(unreadableRefusal('<!doctype html><p id="error">No.</p>', 'http://x/vercel')).toContain(
      'no link back to http://x/vercel',
    )
  })
})
