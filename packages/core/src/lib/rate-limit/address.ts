/**
 * The client address rate limits count against. It decides whether an attacker can shed
 * their counters by lying, so it comes only from what the attacker cannot write:
 *
 * - with `trustHost` (the app says a proxy in front sets the forwarding headers, the same
 *   trust that lets `X-Forwarded-Host` decide the origin), the **last** `X-Forwarded-For`
 *   entry: the address the proxy itself saw connect. Entries before it are whatever the
 *   client sent and the proxy passed along;
 * - otherwise the address the integration read from the socket and passed to the runtime
 *   (`handle(request, { clientAddress })`) — an argument of the call, never a header, so
 *   a client cannot forge it;
 * - otherwise none.
 * @module
 */

/** Longest textual IP address without a zone (an IPv6 address with an embedded IPv4 one). */
const MAX_ADDRESS = 45
/** Longest input looked at: an address, a zone (an interface name or number), brackets and a port. */
const MAX_INPUT = 128

/**
 * An IPv4 or IPv6 address as text in one canonical spelling, or `undefined` for anything
 * else, so every spelling of one client is one counter (and one allow-list entry):
 *
 * - a port a proxy appended (`203.0.113.5:54321`, `[2001:db8::1]:443`, as Azure's front
 *   ends write them) is dropped: the client picks its port, so counting it would give
 *   every connection a fresh counter;
 * - a zone (`fe80::1%eth0`, `[fe80::1%25eth0]` as RFC 6874 writes it in URLs) is dropped:
 *   it names the server's interface the packet came in on, not the client, and Node's
 *   `remoteAddress` carries it for every link-local peer — an address we refused for it
 *   was a client no per-address limit counted;
 * - IPv4 comes back in plain decimal (`010.0.0.1` is `10.0.0.1`); an IPv4-mapped IPv6
 *   address (`::ffff:192.0.2.1`, `::ffff:c000:201`) as the IPv4 address it carries;
 * - other IPv6 addresses as RFC 5952 writes them: lower case, no leading zeros, the longest
 *   run of zero groups as `::` (`2001:DB8:0:0::0001` is `2001:db8::1`).
 */
export function asAddress(value: string | undefined | null): string | undefined {
  if (!value) return undefined
  let text = value.trim()
  // (An empty or blank value needs no test of its own: it is no IPv4 address below.)
  if (text.length > MAX_INPUT) return undefined
  const bracketed = /^\[([^\]]*)\](?::(\d{1,5}))?$/.exec(text)
  const withPort = bracketed ? undefined : /^(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})$/.exec(text)
  const port = bracketed?.[2] ?? withPort?.[2]
  if (port !== undefined && Number(port) > 65535) return undefined
  if (bracketed) {
    text = bracketed[1]!
    if (!text.includes(":")) return undefined
  } else if (withPort) text = withPort[1]!
  if (!text.includes(":")) return ipv4(text)
  // The zone goes, whatever it names (only IPv6 has one; `%25` is its URL-escaped `%`).
  const zone = text.indexOf("%")
  if (zone >= 0) text = text.slice(0, zone)
  if (text.length > MAX_ADDRESS) return undefined
  const groups = expandIPv6(text)
  if (!groups) return undefined
  return mappedIPv4(groups) ?? compressIPv6(groups)
}

/** Eight groups (already without leading zeros) as RFC 5952 §4 writes them. */
function compressIPv6(groups: string[]): string {
  let best = { at: -1, length: 1 }
  for (let i = 0; i < groups.length; ) {
    let j = i
    while (j < groups.length && groups[j] === "0") j++
    if (j - i > best.length) best = { at: i, length: j - i }
    i = j === i ? i + 1 : j
  }
  if (best.at < 0) return groups.join(":")
  return `${groups.slice(0, best.at).join(":")}::${groups.slice(best.at + best.length).join(":")}`
}

/** A dotted IPv4 address in plain decimal (`010.0.0.1` is `10.0.0.1`), or `undefined`. */
function ipv4(text: string): string | undefined {
  // Nearly every address arrives as written here (a socket's `remoteAddress`): that one is
  // answered as it is, without the split and join below (this runs on every counted request).
  if (isCanonicalIPv4(text)) return text
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(text)) return undefined
  const octets = text.split(".").map(Number)
  return octets.every((o) => o <= 255) ? octets.join(".") : undefined
}

/** Whether `text` is four decimal octets, each 0–255 without a leading zero: `ipv4`'s own answer for it. */
export function isCanonicalIPv4(text: string): boolean {
  let dots = 0
  let octet = 0
  let digits = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 46) {
      if (digits === 0 || ++dots > 3) return false
      octet = 0
      digits = 0
    } else if (c >= 48 && c <= 57) {
      if (digits === 1 && octet === 0) return false
      octet = octet * 10 + (c - 48)
      if (++digits > 3 || octet > 255) return false
    } else return false
  }
  return dots === 3 && digits > 0
}

/** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:0:0/96`) carries, else `undefined`. */
function mappedIPv4(groups: string[]): string | undefined {
  if (!groups.slice(0, 5).every((g) => g === "0") || groups[5] !== "ffff") return undefined
  const [hi, lo] = [parseInt(groups[6]!, 16), parseInt(groups[7]!, 16)]
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`
}

/** The address to count against, or `undefined` when the request has none we can trust. */
export function clientAddress(headers: Headers, trustHost: boolean, fromIntegration: string | undefined): string | undefined {
  if (trustHost) {
    const forwarded = headers.get("x-forwarded-for")
    const last = forwarded?.split(",").at(-1)
    const address = asAddress(last)
    if (address) return address
  }
  return asAddress(fromIntegration)
}

/**
 * The counter an address counts against: an IPv4 address itself, an IPv6 address by its
 * /64 network — one subscriber usually gets a whole /64, so counting single IPv6 addresses
 * would let a client rotate through 2^64 of them.
 */
export function addressBucket(address: string): string {
  if (!address.includes(":")) return address
  const groups = expandIPv6(address)
  if (!groups) return address
  return mappedIPv4(groups) ?? `${groups.slice(0, 4).join(":")}::/64`
}

/** The eight 16-bit groups of an IPv6 address (an embedded IPv4 tail taken as two), or `undefined`. */
function expandIPv6(address: string): string[] | undefined {
  let text = address
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text)
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number]
    if (a > 255 || b > 255 || c > 255 || d > 255 || (v4.index > 0 && text[v4.index - 1] !== ":")) return undefined
    text = text.slice(0, v4.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const halves = text.split("::")
  if (halves.length > 2) return undefined
  const head = halves[0] ? halves[0].split(":") : []
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : []
  const missing = 8 - head.length - tail.length
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined
  // Without `::`, `missing` is 0 here (checked above): no zero groups to add.
  const groups = [...head, ...Array(missing).fill("0"), ...tail]
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return undefined
  return groups.map((g) => g.toLowerCase().replace(/^0+(?=.)/, ""))
}
