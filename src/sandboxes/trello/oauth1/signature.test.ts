import { describe, expect, it } from 'vitest'
import {
  baseStringUri,
  hmacSha1Signature,
  normalizeParameters,
  oauthHeader,
  parseOAuthHeader,
  percentEncode,
  signatureBaseString,
  signRequest,
  type ParamPair,
} from './signature.ts'

describe('RFC 5849 percent-encoding', () => {
  it.each([
    ['abcABC123-._~', 'abcABC123-._~'],
    ['Ladies + Gentlemen', 'Ladies%20%2B%20Gentlemen'],
    ["!*'()", '%21%2A%27%28%29'],
    ['a=b&c', 'a%3Db%26c'],
    ['☃', '%E2%98%83'],
  ])('encodes %j as %j', (input, output) => {
    expect(percentEncode(input)).toBe(output)
  })
})

describe('signature base string', () => {
  it('normalizes the RFC 5849 §3.4.1 example request', () => {
    // POST /request?b5=%3D%253D&a3=a&c%40=&a2=r%20b, body c2&a3=2+q, header parameters.
    const query = [...new URLSearchParams('b5=%3D%253D&a3=a&c%40=&a2=r%20b')] as ParamPair[]
    const body = [...new URLSearchParams('c2&a3=2+q')] as ParamPair[]
    const oauth: ParamPair[] = [
      ['oauth_consumer_key', '9djdj82h48djs9d2'],
      ['oauth_token', 'kkk9d7dh3k39sjv7'],
      ['oauth_signature_method', 'HMAC-SHA1'],
      ['oauth_timestamp', '137131201'],
      ['oauth_nonce', '7d8f3e4a'],
    ]
    expect(normalizeParameters([...query, ...body, ...oauth])).toBe(
      'a2=r%20b&a3=2%20q&a3=a&b5=%3D%253D&c%40=&c2=&oauth_consumer_key=9djdj82h48djs9d2&oauth_nonce=7d8f3e4a&oauth_signature_method=HMAC-SHA1&oauth_timestamp=137131201&oauth_token=kkk9d7dh3k39sjv7',
    )
    expect(
      signatureBaseString('post', 'http://example.com/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b', [
        ...query,
        ...body,
        ...oauth,
      ]),
    ).toBe(
      'POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk9d7dh3k39sjv7',
    )
  })

  it.each([
    ['HTTP://EXAMPLE.COM:80/r%20v/X?id=123', 'http://example.com/r%20v/X'],
    ['https://www.example.net:8080/?q=1', 'https://www.example.net:8080/'],
    ['https://api.example.com:443/1/cards', 'https://api.example.com/1/cards'],
  ])('base string URI of %s is %s (RFC 5849 §3.4.1.2)', (url, expected) => {
    expect(baseStringUri(url)).toBe(expected)
  })
})

describe('HMAC-SHA1 signatures against well-known vectors', () => {
  it('OAuth Core 1.0 appendix A.5 (photos.example.net)', () => {
    const signed = signRequest({
      method: 'GET',
      url: 'http://photos.example.net/photos?file=vacation.jpg&size=original',
      consumerKey: 'dpf43f3p2l4k3l03',
      consumerSecret: 'kd94hf93k423kf44',
      token: 'nnch734d00sl2jdk',
      tokenSecret: 'pfkkdhi9sl3r4s00',
      nonce: 'kllo9940pd9333jh',
      timestamp: 1191242096,
    })
    expect(signed.oauth_signature).toBe('tR3+Ty81lMeYAr/Fid0kMTYa/WM=')
  })

  it("Twitter's documented example (form body signed too)", () => {
    const signed = signRequest({
      method: 'POST',
      url: 'https://api.twitter.com/1.1/statuses/update.json?include_entities=true',
      consumerKey: 'xvz1evFS4wEEPTGEFPHBog',
      consumerSecret: 'kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw',
      token: '370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb',
      tokenSecret: 'LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE',
      form: { status: 'Hello Ladies + Gentlemen, a signed OAuth request!' },
      nonce: 'kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg',
      timestamp: 1318622958,
    })
    expect(signed.oauth_signature).toBe('hCtSmYh+iHYCEqBWrE7C7hYmtUk=')
  })

  it('an empty token secret still ends the key with "&"', () => {
    expect(hmacSha1Signature('base', 'secret')).toBe(hmacSha1Signature('base', 'secret', ''))
    expect(hmacSha1Signature('base', 'secret')).not.toBe(hmacSha1Signature('base', 'secret', 'x'))
  })
})

describe('Authorization header', () => {
  it('round-trips through oauthHeader and parseOAuthHeader', () => {
    const params = { oauth_consumer_key: 'k', oauth_token: 't', oauth_signature: 'a+b/c=' }
    const header = oauthHeader(params)
    expect(header).toBe('OAuth oauth_consumer_key="k", oauth_token="t", oauth_signature="a%2Bb%2Fc%3D"')
    expect(parseOAuthHeader(header)).toEqual(params)
  })

  it('parses the unsigned TrelloDotNet form and ignores other schemes', () => {
    expect(parseOAuthHeader('OAuth oauth_consumer_key="abc", oauth_token="def"')).toEqual({
      oauth_consumer_key: 'abc',
      oauth_token: 'def',
    })
    expect(parseOAuthHeader('oauth realm="Example",oauth_nonce=xyz')).toEqual({
      realm: 'Example',
      oauth_nonce: 'xyz',
    })
    expect(parseOAuthHeader('Bearer abc')).toBeUndefined()
    expect(parseOAuthHeader(undefined)).toBeUndefined()
  })
})
