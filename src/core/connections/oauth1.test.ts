import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { normalizeParameters, oauth1Authorization, signatureBaseString, type ParamPair } from './oauth1.ts'

function params(header: string): Record<string, string> {
  return Object.fromEntries(
    [...header.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], decodeURIComponent(m[2])]),
  )
}

describe('OAuth 1.0a HMAC-SHA1 signing', () => {
  it('matches the published test vector (Twitter developer docs, "Creating a signature")', () => {
    const header = oauth1Authorization(
      'POST',
      'https://api.twitter.com/1/statuses/update.json?include_entities=true',
      {
        consumerKey: 'xvz1evFS4wEEPTGEFPHBog',
        consumerSecret: 'kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw',
        token: '370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb',
        tokenSecret: 'LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE',
      },
      {
        form: { status: 'Hello Ladies + Gentlemen, a signed OAuth request!' },
        nonce: 'kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg',
        timestamp: 1318622958,
      },
    )
    expect(params(header).oauth_signature).toBe('tnnArxj06cWHq44gCs1OSKk/jLY=')
    expect(header).not.toContain('status=')
  })

  it('signs with an empty token secret for tokens from the authorize page', () => {
    const header = oauth1Authorization(
      'GET',
      'https://api.trello.com/1/members/me?fields=username',
      {
        consumerKey: 'k',
        consumerSecret: 's',
        token: 't',
      },
      { nonce: 'n', timestamp: 1 },
    )
    const p = params(header)
    const base =
      'GET&https%3A%2F%2Fapi.trello.com%2F1%2Fmembers%2Fme&fields%3Dusername%26oauth_consumer_key%3Dk%26oauth_nonce%3Dn%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1%26oauth_token%3Dt%26oauth_version%3D1.0'
    expect(p.oauth_signature).toBe(createHmac('sha1', 's&').update(base).digest('base64'))
  })

  it('includes flow parameters such as oauth_callback in the header and the signature', () => {
    const header = oauth1Authorization(
      'POST',
      'https://trello.com/1/OAuthGetRequestToken',
      { consumerKey: 'k', consumerSecret: 's' },
      { extra: { oauth_callback: 'http://127.0.0.1:3000/oauth/callback' }, nonce: 'n', timestamp: 2 },
    )
    expect(params(header).oauth_callback).toBe('http://127.0.0.1:3000/oauth/callback')
    expect(params(header).oauth_token).toBeUndefined()
  })
})

describe('RFC 5849 §3.4.1, with its own example', () => {
  // POST /request?b5=%3D%253D&a3=a&c%40=&a2=r%20b with body c2&a3=2+q and these protocol parameters.
  const url = 'http://example.com/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b'
  const body = [...new URLSearchParams('c2&a3=2+q')] as ParamPair[]
  const protocol: ParamPair[] = [
    ['oauth_consumer_key', '9djdj82h48djs9d2'],
    ['oauth_token', 'kkk9d7dh3k39sjv7'],
    ['oauth_signature_method', 'HMAC-SHA1'],
    ['oauth_timestamp', '137131201'],
    ['oauth_nonce', '7d8f3e4a'],
  ]

  it('§3.4.1.3.2: the normalized parameters', () => {
    const query = [...new URLSearchParams(new URL(url).search)] as ParamPair[]
    expect(normalizeParameters([...query, ...body, ...protocol])).toBe(
      'a2=r%20b&a3=2%20q&a3=a&b5=%3D%253D&c%40=&c2=&oauth_consumer_key=9djdj82h48djs9d2&oauth_nonce=7d8f3e4a&oauth_signature_method=HMAC-SHA1&oauth_timestamp=137131201&oauth_token=kkk9d7dh3k39sjv7',
    )
  })

  it('§3.4.1.1: the signature base string, the query read from the URL as sent', () => {
    expect(signatureBaseString('POST', url, [...body, ...protocol])).toBe(
      'POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk9d7dh3k39sjv7',
    )
  })

  it('§3.4.1.2: scheme and host lower-cased, default port left out', () => {
    expect(signatureBaseString('GET', 'HTTP://EXAMPLE.COM:80/r%20v/X?id=123', [])).toBe(
      'GET&http%3A%2F%2Fexample.com%2Fr%2520v%2FX&id%3D123',
    )
    expect(signatureBaseString('GET', 'https://www.example.net:8080/?q=1', [])).toBe(
      'GET&https%3A%2F%2Fwww.example.net%3A8080%2F&q%3D1',
    )
  })

  it.each([
    ['?%40x=', '%2540x%3D'],
    ['?%C3%A9=1', '%25C3%25A9%3D1'],
    ['?a%2Fb=1', 'a%252Fb%3D1'],
    ['?a+b=c+d', 'a%2520b%3Dc%2520d'],
    ['?x=a%3Db', 'x%3Da%253Db'],
  ])('the percent-encoded name in %s is decoded, then encoded once', (search, normalized) => {
    expect(signatureBaseString('GET', `https://api.trello.com/1/members/me${search}`, [])).toBe(
      `GET&https%3A%2F%2Fapi.trello.com%2F1%2Fmembers%2Fme&${normalized}`,
    )
  })
})
