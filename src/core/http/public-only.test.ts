import { describe, expect, it } from 'vitest'
import { AddressRefused, isPublicAddress, reachable } from './public-only.ts'

describe('which addresses an external agent may be at (SWITCHYARD_AGENT_NETWORKS=public)', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'IPv6 loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'IPv6 unspecified'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['fe80::1', 'IPv6 link-local'],
    ['fd00::1', 'IPv6 unique local'],
    ['::ffff:127.0.0.1', 'IPv4 loopback mapped into IPv6'],
    ['::ffff:10.0.0.1', 'IPv4 private mapped into IPv6'],
    ['64:ff9b::7f00:1', 'loopback through NAT64'],
    ['::7f00:1', 'IPv4 loopback in an IPv4-compatible IPv6 address (issue 22)'],
    ['::127.0.0.1', 'IPv4 loopback, IPv4-compatible, dotted'],
    ['::a00:1', 'IPv4 private, IPv4-compatible'],
    ['::a9fe:a9fe', 'cloud metadata, IPv4-compatible'],
    ['::5db8:d822', 'a public IPv4 address, IPv4-compatible (deprecated, never a real host)'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'documentation (reserved)'],
    ['198.18.0.1', 'benchmarking (reserved)'],
    ['not an address', 'not an address'],
  ])('refuses %s (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false)
  })

  it.each(['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '::ffff:93.184.216.34'])(
    'allows the public address %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true)
    },
  )

  it('refuses a literal address before any connection, however the URL writes it', () => {
    for (const url of [
      'http://127.0.0.1/',
      'http://0x7f.1/',
      'http://2130706433/',
      'http://[::1]:8080/',
      'http://[::ffff:7f00:1]/',
      'http://[::7f00:1]:8080/',
    ]) {
      expect(() => reachable(url, 'public'), url).toThrow(AddressRefused)
    }
  })

  it('lets everything through when the operator allows any network, and checks names at connect time otherwise', () => {
    expect(reachable('http://127.0.0.1/', 'any')).toEqual({})
    expect(reachable('https://agent.example.com/runs', 'public').dispatcher).toBeDefined()
  })
})
