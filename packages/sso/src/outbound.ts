/**
 * Which URLs an organization's admin may make the server fetch (SAML metadata, an OIDC
 * issuer's discovery): never an address inside the network the app runs in. An admin of one
 * tenant is not trusted with the app's network: `https://169.254.169.254/`, `https://10.0.0.7/`
 * or `https://[::ffff:a9fe:a9fe]/` would turn "test connection" into a probe of internal
 * services. Loopback stays allowed outside production (a test IdP on the developer's machine).
 *
 * Only address literals are judged here: a name that resolves to an internal address needs
 * the resolver (or an egress proxy) to be refused, and is not.
 * @module
 */
import { BlockList, isIP } from "node:net"

const V4: Array<[string, number]> = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local: cloud metadata services
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
]
const V6: Array<[string, number]> = [
  ["::", 127], // unspecified and loopback
  ["64:ff9b::", 96], // NAT64: an IPv4 address inside
  ["100::", 64],
  ["2002::", 16], // 6to4: an IPv4 address inside
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8],
]

/** The internal ranges, built per call (a few dozen subnets, for an admin's save or test): nothing runs on import. */
function internalRanges(): BlockList {
  const list = new BlockList()
  for (const [network, prefix] of V4) list.addSubnet(network, prefix, "ipv4")
  for (const [network, prefix] of V6) list.addSubnet(network, prefix, "ipv6")
  return list
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"])

/** The IPv4 address an IPv4-mapped IPv6 literal (`::ffff:a9fe:a9fe`) carries, else null. */
function mappedV4(address: string): string | null {
  const match = /^::ffff:(?:([0-9a-f]{1,4}):([0-9a-f]{1,4})|(\d+\.\d+\.\d+\.\d+))$/i.exec(address)
  if (!match) return null
  if (match[3]) return match[3]
  const high = parseInt(match[1]!, 16)
  const low = parseInt(match[2]!, 16)
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
}

/**
 * Whether the server may fetch `url` on an organization admin's word: its host is a name, or
 * an address outside every private, loopback, link-local and reserved range (loopback allowed
 * when `allowLoopback`).
 *
 * @example
 * ```ts
 * fetchableHost(new URL("https://idp.acme.com/metadata"), false) // true
 * fetchableHost(new URL("https://169.254.169.254/latest"), false) // false
 * ```
 */
export function fetchableHost(url: URL, allowLoopback = process.env.NODE_ENV !== "production"): boolean {
  if (LOOPBACK_NAMES.has(url.hostname)) return allowLoopback
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname
  const kind = isIP(host)
  if (kind === 0) return !/^localhost\.?$|\.localhost\.?$/i.test(host)
  const v4 = kind === 4 ? host : mappedV4(host)
  if (v4) return !internalRanges().check(v4, "ipv4")
  return !internalRanges().check(host, "ipv6")
}
