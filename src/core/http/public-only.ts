import dns from 'node:dns'
import ipaddr from 'ipaddr.js'
import { Agent } from 'undici'

/**
 * Outbound requests to addresses a user typed (an external agent's address): which networks they may
 * reach (SWITCHYARD_AGENT_NETWORKS, docs/security.md). Without a check, anyone who may create an
 * agent could have the service POST to its own machine, its private network or a cloud metadata
 * endpoint (169.254.169.254) and read the answer's start on the run's timeline.
 */
export type AgentNetworks = 'public' | 'any'

/** Only ordinary public unicast addresses: not loopback, private, link-local, CGNAT, reserved, multicast, or IPv4 hidden in IPv6. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false
  let parsed = ipaddr.parse(address)
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6
    // ::a.b.c.d, "IPv4-compatible" (RFC 4291 2.5.5.1, deprecated): ipaddr.js calls ::/96 unicast, and
    // a stack that still honours it reaches the IPv4 address in its last 32 bits (::7f00:1 is
    // 127.0.0.1). No public host is addressed this way, so the whole block is refused.
    if (v6.parts.slice(0, 6).every((part) => part === 0)) return false
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address()
  }
  return parsed.range() === 'unicast'
}

export class AddressRefused extends Error {
  constructor(host: string, address: string) {
    super(
      `${host === address ? address : `${host} resolves to ${address}, which`} is not a public address; Switchyard delivers only to public addresses unless SWITCHYARD_AGENT_NETWORKS=any`,
    )
  }
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void

/**
 * The address check happens at connect time, on the address actually connected to: checking the
 * name first and connecting later would let a name that changes its answer in between (DNS
 * rebinding) through. Literal IP hosts are never looked up, so they are checked before the request.
 */
function publicLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '')
    const refused = addresses.find((a) => !isPublicAddress(a.address))
    if (refused)
      return callback(
        Object.assign(new AddressRefused(hostname, refused.address), { code: 'EADDRREFUSED' }),
        '',
      )
    if (options.all) return callback(null, addresses)
    callback(null, addresses[0]!.address, addresses[0]!.family)
  })
}

const publicDispatcher = new Agent({ connect: { lookup: publicLookup as never } })

/**
 * Why `url` can never be reached within the networks, known without a lookup: a literal address
 * outside them, or a localhost name (always loopback, RFC 6761). Null when it may be reachable; a
 * name's answer is only known, and checked, when connecting.
 */
export function refusedWithoutLookup(url: string, networks: AgentNetworks): AddressRefused | null {
  if (networks === 'any') return null
  const host = new URL(url).hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase()
  if (ipaddr.isValid(host) && !isPublicAddress(host)) return new AddressRefused(host, host)
  if (host === 'localhost' || host.endsWith('.localhost')) return new AddressRefused(host, '127.0.0.1')
  return null
}

/** The fetch options that keep a request to `url` within the allowed networks; throws AddressRefused for an address known to be outside them. */
export function reachable(url: string, networks: AgentNetworks): { dispatcher?: Agent } {
  const refused = refusedWithoutLookup(url, networks)
  if (refused) throw refused
  return networks === 'any' ? {} : { dispatcher: publicDispatcher }
}
