import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { oauth1Authorization } from './oauth1.ts'

function params(header: string): Record<string, string> {
  return Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], decodeURIComponent(m[2])]))
}

describe('OAuth 1.0a HMAC-SHA1 signing', () => {
  it('matches the published test vector (Twitter developer docs, "Creating a signature")', () => {
    const header = oauth1Authorization('POST', 'https://api.twitter.com/1/statuses/update.json?include_entities=true', {
      consumerKey: 'xvz1evFS4wEEPTGEFPHBog',
      consumerSecret: 'kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw',
      token: '370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb',
      tokenSecret: 'LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE',
    }, { form: { status: 'Hello Ladies + Gentlemen, a signed OAuth request!' }, nonce: 'kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg', timestamp: 1318622958 })
    expect(params(header).oauth_signature).toBe('tnnArxj06cWHq44gCs1OSKk/jLY=')
    expect(header).not.toContain('status=')
  })

  it('signs with an empty token secret for tokens from the authorize page', () => {
    const header = oauth1Authorization('GET', 'https://api.trello.com/1/members/me?fields=username', {
      consumerKey: 'k', consumerSecret: 's', token: 't',
    }, { nonce: 'n', timestamp: 1 })
    const p = params(header)
    const base = 'GET&https%3A%2F%2Fapi.trello.com%2F1%2Fmembers%2Fme&fields%3Dusername%26oauth_consumer_key%3Dk%26oauth_nonce%3Dn%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1%26oauth_token%3Dt%26oauth_version%3D1.0'
    expect(p.oauth_signature).toBe(createHmac('sha1', 's&').update(base).digest('base64'))
  })

  it('includes flow parameters such as oauth_callback in the header and the signature', () => {
    const header = oauth1Authorization('POST', 'https://trello.com/1/OAuthGetRequestToken', { consumerKey: 'k', consumerSecret: 's' },
      { extra: { oauth_callback: 'http://127.0.0.1:3000/oauth/callback' }, nonce: 'n', timestamp: 2 })
    expect(params(header).oauth_callback).toBe('http://127.0.0.1:3000/oauth/callback')
    expect(params(header).oauth_token).toBeUndefined()
  })
})
