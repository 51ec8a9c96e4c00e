/**
 * Email domains an organization claims, and the DNS TXT check that proves the claim.
 *
 * An organization adds `acme.com`; Portcullis gives it a token; an administrator publishes
 *
 * ```text
 * _portcullis-challenge.acme.com.  TXT  "portcullis-verification=<token>"
 * ```
 *
 * and the verifier looks the record up. Only then does the domain route `ada@acme.com` to
 * Acme's connection, or refuse password sign-ins of its addresses (`requireSso`).
 * @module
 */
import { Resolver } from "node:dns/promises"
import { randomBytes } from "node:crypto"
import { isIP } from "node:net"
import { domainToASCII, domainToUnicode } from "node:url"
import { ExtensionRequestError, ServiceUnavailable } from "@portcullis/core/extension"

// ---------------------------------------------------------------------------------------
// Normalizing a domain

/** Longer input is refused before any parsing: a domain is at most 253 characters, a Unicode one a few times that. */
const MAX_INPUT_LENGTH = 1024
/**
 * What a domain may be typed with: letters, marks and digits of any script, hyphens and
 * dots (with the ideographic and full-width dots IDNA maps to `.`). Checked on the raw input
 * because `domainToASCII` is a URL host parser: it would percent-decode `a%2eb.com` and cut
 * `acme.com/evil` at the slash, turning text that is no domain into one that is.
 */
const TYPED = /^[\p{L}\p{M}\p{N}\-.\u3002\uFF0E\uFF61]+$/u
/** One ASCII label (RFC 1035 with RFC 1123's leading digits): 1–63 of `a-z0-9-`, no hyphen at either end. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/
/** A last label that a URL parser reads as part of an IPv4 address (decimal or `0x` hex); no real TLD is numeric. */
const NUMERIC_LABEL = /^(?:\d+|0x[0-9a-f]*)$/

/**
 * Special-use names (RFC 6761, RFC 6762) no one can prove they own in public DNS: a claim of
 * them or under them means nothing. `.test` and `.example` stay allowed for development.
 */
const SPECIAL_USE = ["localhost", "invalid", "local", "arpa"]

/**
 * Suffixes under which anyone may register a name, so that no organization may claim the
 * suffix itself. Every single-label name (every TLD: `com`, `org`, `dev`) is refused by the
 * two-label rule; these are the common multi-label ones. A full Public Suffix List is not
 * bundled (it is large and changes weekly): a suffix missing here is still safe, because
 * claiming it needs a TXT record in its zone, which only its registry can publish.
 */
const PUBLIC_SUFFIXES = new Set([
  // Second-level registries
  "co.uk", "org.uk", "me.uk", "ltd.uk", "plc.uk", "net.uk", "ac.uk", "gov.uk", "sch.uk", "nhs.uk",
  "com.au", "net.au", "org.au", "edu.au", "gov.au", "id.au", "asn.au",
  "co.nz", "org.nz", "net.nz", "ac.nz", "govt.nz",
  "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp", "ad.jp", "ed.jp", "gr.jp", "lg.jp",
  "co.kr", "or.kr", "ne.kr", "ac.kr", "go.kr", "re.kr",
  "com.br", "net.br", "org.br", "gov.br", "edu.br",
  "com.cn", "net.cn", "org.cn", "gov.cn", "edu.cn", "ac.cn",
  "com.hk", "org.hk", "net.hk", "edu.hk", "gov.hk",
  "com.tw", "org.tw", "net.tw", "edu.tw", "gov.tw",
  "co.in", "net.in", "org.in", "firm.in", "gen.in", "ind.in", "ac.in", "edu.in", "gov.in",
  "co.za", "org.za", "net.za", "gov.za", "ac.za",
  "com.mx", "org.mx", "net.mx", "gob.mx", "edu.mx",
  "com.ar", "org.ar", "net.ar", "gob.ar", "edu.ar",
  "com.sg", "org.sg", "net.sg", "edu.sg", "gov.sg",
  "com.my", "org.my", "net.my", "edu.my", "gov.my",
  "co.id", "or.id", "ac.id", "go.id", "web.id",
  "com.tr", "org.tr", "net.tr", "edu.tr", "gov.tr",
  "co.il", "org.il", "net.il", "ac.il", "gov.il",
  "com.ua", "org.ua", "net.ua", "gov.ua",
  "com.pl", "net.pl", "org.pl",
  "co.th", "or.th", "ac.th", "go.th", "in.th",
  "com.ph", "org.ph", "net.ph", "gov.ph",
  "com.vn", "net.vn", "org.vn", "gov.vn",
  "com.pk", "org.pk", "net.pk", "gov.pk",
  "com.ng", "org.ng", "gov.ng",
  "com.eg", "org.eg", "gov.eg",
  "com.sa", "org.sa", "gov.sa",
  "co.ke", "or.ke", "go.ke",
  "com.co", "org.co", "net.co", "gov.co",
  "com.pe", "org.pe", "gob.pe",
  "com.es", "org.es", "nom.es", "gob.es",
  "co.at", "or.at", "gv.at", "ac.at",
  "com.ru", "org.ru", "net.ru",
  "eu.com", "uk.com", "us.com", "de.com", "us.org",
  // Hosting platforms that give every customer a subdomain
  "github.io", "gitlab.io", "herokuapp.com", "vercel.app", "netlify.app", "pages.dev", "workers.dev",
  "web.app", "firebaseapp.com", "appspot.com", "blogspot.com", "azurewebsites.net", "cloudfront.net",
  "s3.amazonaws.com", "fly.dev", "onrender.com", "glitch.me", "ngrok.io", "ngrok-free.app",
])

const invalid = (message: string) => new ExtensionRequestError("invalid-domain", message, 422)

/**
 * The canonical form of a domain an organization claims or an email address is under:
 * lowercase ASCII (IDNA: `bücher.de` → `xn--bcher-kva.de`, full-width letters folded), no
 * trailing dot. Refuses what is no claimable domain — one label, an IP address, `localhost`,
 * a wildcard, a URL, a public suffix (`co.uk`, `github.io`) — with
 * `ExtensionRequestError("invalid-domain", …, 422)`.
 *
 * @example
 * ```ts
 * import { normalizeDomain } from "@portcullis/sso"
 *
 * normalizeDomain(" ACME.com. ") // "acme.com"
 * normalizeDomain("bücher.de")   // "xn--bcher-kva.de"
 * normalizeDomain("co.uk")       // throws ExtensionRequestError (invalid-domain, 422)
 * ```
 */
export function normalizeDomain(input: unknown): string {
  if (typeof input !== "string") throw invalid("A domain is text, such as acme.com.")
  const typed = input.trim()
  if (typed.length === 0) throw invalid("Enter a domain, such as acme.com.")
  if (typed.length > MAX_INPUT_LENGTH || !TYPED.test(typed)) {
    throw invalid("A domain has only letters, digits, hyphens and dots, such as acme.com (no @, /, * or spaces).")
  }
  const ascii = domainToASCII(typed)
  if (!ascii) throw invalid("This is not a valid internationalized domain name.")
  const domain = ascii.endsWith(".") ? ascii.slice(0, -1) : ascii
  if (domain.length > 253) throw invalid("A domain is at most 253 characters long.")
  const labels = domain.split(".")
  // The URL parser turns `0x7f.1` into `127.0.0.1`; either way an address proves nothing about email.
  if (isIP(domain) || NUMERIC_LABEL.test(labels.at(-1) ?? "")) throw invalid("An IP address is not a domain.")
  if (labels.length < 2) throw invalid("A domain has at least two labels, such as acme.com.")
  for (const label of labels) {
    if (!LABEL.test(label)) {
      throw invalid("Each part of a domain is 1 to 63 letters, digits or hyphens, and does not start or end with a hyphen.")
    }
    // `domainToASCII` passes an ACE label through unchecked; one that does not decode is no IDN.
    if (label.startsWith("xn--") && !decodesAsIdn(label)) throw invalid("This is not a valid internationalized domain name.")
  }
  if (SPECIAL_USE.includes(labels.at(-1)!)) throw invalid("This name is reserved and cannot be claimed.")
  if (PUBLIC_SUFFIXES.has(domain)) throw invalid("Anyone can register names under this suffix, so it cannot be claimed; claim your own domain under it.")
  return domain
}

/** Whether an ACE label (`xn--…`) is the encoding of a Unicode label that encodes back to it. */
function decodesAsIdn(label: string): boolean {
  const unicode = domainToUnicode(label)
  return unicode !== label && unicode !== "" && domainToASCII(unicode) === label
}

/**
 * The normalized domain of an email address (what follows its last `@`), or `null` when the
 * address has none a domain claim could match (`ada@localhost`, `ada@[127.0.0.1]`, no `@`).
 *
 * @example
 * ```ts
 * import { emailDomain } from "@portcullis/sso"
 *
 * emailDomain("Ada@ACME.com") // "acme.com"
 * emailDomain("ada")          // null
 * ```
 */
export function emailDomain(email: string): string | null {
  if (typeof email !== "string" || email.length > 320) return null
  const at = email.lastIndexOf("@")
  if (at < 1 || at === email.length - 1) return null
  try {
    return normalizeDomain(email.slice(at + 1))
  } catch (error) {
    if (error instanceof ExtensionRequestError) return null
    throw error
  }
}

// ---------------------------------------------------------------------------------------
// The verification record

/**
 * The label the TXT record is published under. A dedicated label, as Okta
 * (`_oktaverification.<domain>`) and GitHub (`_github-challenge-<org>.<domain>`) use, rather
 * than the apex where Google Workspace puts `google-site-verification=`: the apex's TXT set
 * holds SPF (`v=spf1 …`) and every other vendor's proof, some DNS hosts allow only one TXT
 * value per name, and a record of its own can be removed after verification without touching
 * mail.
 */
export const VERIFICATION_LABEL = "_portcullis-challenge"
/** The prefix of the record's value, so a human reading the zone knows what it is for. */
export const VERIFICATION_PREFIX = "portcullis-verification="
/** Tokens are what {@link createVerificationToken} makes: base64url, long enough to be unguessable. */
const TOKEN = /^[A-Za-z0-9_-]{16,128}$/

function checkToken(token: string): void {
  // A programming error, not the client's: tokens come from createVerificationToken.
  if (typeof token !== "string" || !TOKEN.test(token)) throw new TypeError("A domain verification token is 16–128 base64url characters")
}

/**
 * A new random verification token (256 bits, base64url): store it as the claim's `token`.
 *
 * @example
 * ```ts
 * import { createVerificationToken, normalizeDomain } from "@portcullis/sso"
 *
 * await store.claimDomain({ domain: normalizeDomain(input), organizationId, token: createVerificationToken(), verifiedAt: null, requireSso: false, connectionId: null, createdAt: new Date() })
 * ```
 */
export function createVerificationToken(): string {
  return randomBytes(32).toString("base64url")
}

/** The DNS record an administrator publishes to prove a domain claim. */
export interface VerificationRecord {
  /** The record's name: `_portcullis-challenge.<domain>`. */
  name: string
  type: "TXT"
  /** The record's value: `portcullis-verification=<token>`. */
  value: string
}

/**
 * The TXT record that proves the claim of `domain` with `token`, to show to the administrator.
 *
 * @example
 * ```ts
 * import { verificationRecord } from "@portcullis/sso"
 *
 * verificationRecord("acme.com", claim.token)
 * // { name: "_portcullis-challenge.acme.com", type: "TXT", value: "portcullis-verification=…" }
 * ```
 */
export function verificationRecord(domain: string, token: string): VerificationRecord {
  checkToken(token)
  return { name: `${VERIFICATION_LABEL}.${normalizeDomain(domain)}`, type: "TXT", value: `${VERIFICATION_PREFIX}${token}` }
}

// ---------------------------------------------------------------------------------------
// Looking the record up

/**
 * The DNS lookup of a verification record failed or did not answer in time, so whether the
 * record exists is unknown: try again later. A {@link ServiceUnavailable}, so a route that
 * lets it through answers `503` with `Retry-After`; its `code` is `"dns-unavailable"`.
 *
 * @example
 * ```ts
 * import { DnsUnavailable } from "@portcullis/sso"
 *
 * try {
 *   state = await verifier.check(domain, claim.token)
 * } catch (error) {
 *   if (error instanceof DnsUnavailable) return { json: { error: error.code }, status: 503 }
 *   throw error
 * }
 * ```
 */
export class DnsUnavailable extends ServiceUnavailable {
  /** Stable, for a JSON answer. */
  readonly code = "dns-unavailable"
  /** `timeout`: no answer within the bound; `failure`: the resolver answered with an error (SERVFAIL, REFUSED, …). */
  readonly reason: "timeout" | "failure"

  constructor(reason: "timeout" | "failure", cause?: Error) {
    super(reason === "timeout" ? "The DNS lookup of the domain's verification record timed out" : "The DNS lookup of the domain's verification record failed", cause)
    this.reason = reason
  }
}

/** Options of {@link createDomainVerifier}. */
export interface DomainVerifierOptions {
  /** DNS servers to ask (`"1.1.1.1"`, `"127.0.0.1:5353"`, `"[2001:db8::1]:53"`); the system's when absent. */
  servers?: string[]
  /** The bound of one check, in milliseconds, retries included. Default `5000`. */
  timeoutMs?: number
  /** How many times each server is asked before giving up. Default `2`. */
  tries?: number
  /** Replaces the lookup (a DNS-over-HTTPS client, a test double): the TXT records of a name, each as its strings. Throw an error with `code` `ENOTFOUND` or `ENODATA` for "no such record". */
  resolveTxt?: (name: string) => Promise<string[][]>
}

/** Checks domain claims against DNS. */
export interface DomainVerifier {
  /**
   * Looks up `_portcullis-challenge.<domain>` and answers `"verified"` when one of its TXT
   * records is `portcullis-verification=<token>`, `"not-found"` when none is (no such name,
   * no TXT record, other values). Throws {@link DnsUnavailable} when DNS could not say, and
   * `invalid-domain` (422) for a domain {@link normalizeDomain} refuses.
   */
  check(domain: string, token: string): Promise<"verified" | "not-found">
}

/** At most this many records of the name are read: the rest of a hostile or misconfigured zone is ignored. */
const MAX_RECORDS = 64
/** A record longer than this is no verification record (ours is under 160 characters). */
const MAX_RECORD_LENGTH = 1024
/** What the resolver says when the name or its TXT records do not exist: a definite "no". */
const ABSENT = new Set(["ENOTFOUND", "ENODATA"])
const TIMED_OUT = new Set(["ETIMEOUT", "ECANCELLED"])

/**
 * Creates the verifier of domain claims: a DNS TXT lookup through `node:dns` (the system's
 * resolver or `servers`), bounded by `timeoutMs`.
 *
 * @example
 * ```ts
 * import { createDomainVerifier } from "@portcullis/sso"
 *
 * const verifier = createDomainVerifier({ servers: ["1.1.1.1", "8.8.8.8"], timeoutMs: 5000 })
 * if (await verifier.check("acme.com", claim.token) === "verified") await store.verifyDomain("acme.com", organizationId, new Date())
 * ```
 */
export function createDomainVerifier(options: DomainVerifierOptions = {}): DomainVerifier {
  const timeoutMs = options.timeoutMs ?? 5000
  const tries = options.tries ?? 2
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new TypeError("timeoutMs must be a positive number of milliseconds")
  if (!Number.isInteger(tries) || tries < 1) throw new TypeError("tries must be a positive integer")
  const servers = options.servers ? [...options.servers] : undefined
  if (servers) new Resolver().setServers(servers) // refuses a malformed address now, not at the first check
  const custom = options.resolveTxt

  /** A resolver per lookup, so that giving up on one (`cancel`) cancels no other check's query. */
  function lookupWithNodeDns(name: string, signal: AbortSignal): Promise<string[][]> {
    // c-ares doubles the timeout on each round of tries; this spreads the bound over them.
    const perTry = Math.max(50, Math.floor(timeoutMs / (2 ** tries - 1)))
    const resolver = new Resolver({ timeout: perTry, tries })
    if (servers) resolver.setServers(servers)
    signal.addEventListener("abort", () => resolver.cancel(), { once: true })
    return resolver.resolveTxt(name)
  }

  async function lookup(name: string): Promise<string[][] | null> {
    const controller = new AbortController()
    let timer: ReturnType<typeof setTimeout> | undefined
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort()
        reject(new DnsUnavailable("timeout"))
      }, timeoutMs)
    })
    try {
      const pending = custom ? custom(name) : lookupWithNodeDns(name, controller.signal)
      const records = await Promise.race([pending, deadline])
      // A replaced lookup is outside code: an answer that is no list of records is a failure, not "absent".
      if (!Array.isArray(records)) throw new DnsUnavailable("failure")
      return records
    } catch (error) {
      if (error instanceof DnsUnavailable) throw error
      const code = (error as { code?: unknown } | null)?.code
      if (typeof code === "string" && ABSENT.has(code)) return null
      throw new DnsUnavailable(typeof code === "string" && TIMED_OUT.has(code) ? "timeout" : "failure", error instanceof Error ? error : undefined)
    } finally {
      clearTimeout(timer)
    }
  }

  return {
    async check(domain, token) {
      const record = verificationRecord(domain, token)
      const records = await lookup(record.name)
      if (!records) return "not-found"
      for (const strings of records.slice(0, MAX_RECORDS)) {
        if (!Array.isArray(strings)) continue
        // A TXT record is a list of strings of at most 255 bytes each; a longer value is
        // published split, and its parts are one value again when joined (RFC 7208 §3.3).
        const value = strings.join("")
        if (value.length > MAX_RECORD_LENGTH) continue
        if (unquote(value.trim()) === record.value) return "verified"
      }
      return "not-found"
    },
  }
}

/** Some DNS control panels store the quotes an administrator pasted with the value; they are not part of it. */
function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1).trim() : value
}
