import { InvalidConfig } from "../../errors.js"
import type { Env } from "./env.js"

/**
 * The origins a deployment answers on, besides `AUTH_URL`: the `trustedOrigins` option,
 * `AUTH_TRUSTED_ORIGINS`, and the deployment URLs a hosting platform puts into the
 * environment. See "Origin trust" in `docs/security.md`.
 *
 * A pattern is `scheme://host[:port]`. In the host, `*` stands for letters, digits and
 * hyphens inside one DNS label — never a dot — so `https://*.example.com` matches
 * `https://a.example.com` but not `https://a.b.example.com`, and
 * `https://myapp-*-myteam.vercel.app` matches that team's previews of that app only.
 * A wildcard may only stand left of the registrable domain — the label just under a public
 * suffix of the Public Suffix List, private suffixes included — so `https://*.example.com` is
 * fine but `https://*.co.uk`, `https://*.github.io` and `https://myapp-*.vercel.app` are
 * refused: each would trust sites anybody can register (another account's `myapp-x` project
 * on vercel.app included).
 *
 * The Public Suffix List (`tldts`, about 130 KiB minified) is loaded only when a pattern has a
 * wildcard, so that last check settles after the others: {@link TrustedOrigins.checked},
 * which every request awaits with the provider kinds' checks (`configProblem`).
 */
export interface TrustedOrigins {
  /** The patterns as configured, for messages. */
  readonly patterns: readonly string[]
  /** Whether `origin` (as `URL.origin` prints it) is on the list. */
  has(origin: string): boolean
  /** The wildcard patterns' registrable-domain check: the first refusal, else `undefined`. */
  readonly checked: Promise<InvalidConfig | undefined>
}

/**
 * Compiles the patterns once, at configuration time; a bad pattern is an `InvalidConfig`,
 * thrown, or for a wildcard inside the registrable domain answered by `checked`.
 */
export function compileTrustedOrigins(patterns: readonly string[]): TrustedOrigins {
  const exact = new Set<string>()
  const wildcards: RegExp[] = []
  const registrable: Wildcard[] = []
  for (const pattern of patterns) {
    const parsed = parsePattern(pattern)
    if (typeof parsed === "string") exact.add(parsed)
    else {
      wildcards.push(parsed.matcher)
      registrable.push(parsed)
    }
  }
  return {
    patterns,
    checked: registrable.length ? checkRegistrable(registrable) : Promise.resolve(undefined),
    has(origin) {
      if (exact.has(origin)) return true
      for (const re of wildcards) if (re.test(origin)) return true
      return false
    },
  }
}

const SCHEME = /^(https?):\/\/([^/?#]+?)\/?$/i
const PORT = /:(\d{1,5})$/

/** A wildcard pattern: its matcher, and its labels for the registrable-domain check. */
interface Wildcard {
  matcher: RegExp
  labels: string[]
  fail: (why: string) => InvalidConfig
}

function refusal(pattern: unknown): (why: string) => InvalidConfig {
  return (why) => new InvalidConfig(`trustedOrigins: ${JSON.stringify(pattern)} ${why}. Write "https://app.example.com" or "https://*.example.com".`)
}

function parsePattern(pattern: unknown): string | Wildcard {
  const fail = refusal(pattern)
  if (typeof pattern !== "string") throw fail("is not a string")
  const match = SCHEME.exec(pattern.trim())
  if (!match) throw fail("is not an http(s) origin without a path")
  const scheme = match[1]!.toLowerCase()
  let host = match[2]!.toLowerCase()
  if (host.includes("@")) throw fail("has userinfo")
  if (!host.includes("*")) {
    let url: URL
    try {
      url = new URL(`${scheme}://${host}`)
    } catch {
      throw fail("is not a valid origin")
    }
    // Stryker disable next-line Regex: equivalent. The replace matters only when URL changed the host, by dropping a default port, which ends it; elsewhere in a host ":80" or ":443" is followed by more port digits and URL keeps the host as written.
    if (url.host !== host && url.host !== host.replace(/:(80|443)$/, "")) throw fail("is not a valid origin")
    return url.origin
  }
  let port = ""
  const portMatch = PORT.exec(host)
  if (portMatch) {
    port = portMatch[0]
    host = host.slice(0, -port.length)
    const n = Number(portMatch[1])
    if (n < 1 || n > 65535) throw fail("has an invalid port")
    // URL.origin drops a scheme's default port, so the pattern must too.
    if ((scheme === "https" && n === 443) || (scheme === "http" && n === 80)) port = ""
  }
  const labels = host.split(".")
  for (const label of labels) {
    if (!/^[a-z0-9*-]+$/.test(label)) throw fail("has a host that is not a DNS name")
  }
  // A host of fewer than three labels with a wildcard has it in its last two.
  if (labels.slice(-2).some((l) => l.includes("*"))) throw fail("has a wildcard in its last two labels")
  const body = labels
    .map((label) => (label === "*" ? "[a-z0-9-]+" : label.split("*").map(escape).join("[a-z0-9-]*")))
    .join("\\.")
  return { matcher: new RegExp(`^${scheme}://${body}${escape(port)}$`), labels, fail }
}

/**
 * The registrable domain of a host each pattern would match: every one of its labels must be
 * fixed, or strangers can register names that match. The first refusal, in pattern order.
 */
async function checkRegistrable(wildcards: readonly Wildcard[]): Promise<InvalidConfig | undefined> {
  let getDomain: typeof import("tldts").getDomain
  try {
    ;({ getDomain } = await import("tldts"))
  } catch (error) {
    return new InvalidConfig("trustedOrigins: the Public Suffix List (tldts) could not be loaded to check the wildcard patterns", error as Error)
  }
  for (const { labels, fail } of wildcards) {
    const registrable = getDomain(labels.map((l) => l.replaceAll("*", "x")).join("."), { allowPrivateDomains: true })
    const fixed = registrable ? registrable.split(".").length : 2
    if (labels.slice(-fixed).some((l) => l.includes("*"))) {
      // Only with a registrable domain can this hold: with none, `fixed` is 2, refused at parsing.
      return fail(`has a wildcard inside the registrable domain (${registrable}), where anybody can register a matching site`)
    }
  }
  return undefined
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")
}

/**
 * `AUTH_TRUSTED_ORIGINS` (comma-separated) and the deployment's own URLs as set by its
 * platform: Vercel's `VERCEL_URL`, `VERCEL_BRANCH_URL` and
 * `VERCEL_PROJECT_PRODUCTION_URL` (host names, served over https), Cloudflare Pages'
 * `CF_PAGES_URL`. The platform writes these, not the request, so a forged `Host` cannot
 * add to them — that is what lets a preview deployment send sign-in links without
 * `AUTH_URL`, as Auth.js apps on these platforms do.
 */
export function envTrustedOrigins(env: Env): string[] {
  const list = (env.AUTH_TRUSTED_ORIGINS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
  for (const name of ["VERCEL_URL", "VERCEL_BRANCH_URL", "VERCEL_PROJECT_PRODUCTION_URL"] as const) {
    const host = env[name]?.trim()
    if (host && /^[a-z0-9.-]+$/i.test(host)) list.push(`https://${host}`)
  }
  const pages = env.CF_PAGES_URL?.trim()
  if (pages && /^https:\/\/[a-z0-9.-]+\/?$/i.test(pages)) list.push(pages.replace(/\/$/, ""))
  return list
}

/**
 * Loopback origins (`localhost`, `127.0.0.0/8`, `[::1]`) are trusted outside production:
 * a link to one leads back to the clicker's own machine, which an attacker who forged the
 * `Host` cannot read. It is what lets `npm run dev` send sign-in links with no settings.
 * In production (`NODE_ENV=production`) they are not (`lib/http/request.ts`): on a phone
 * any installed app may listen on a loopback port, on a shared machine any other user.
 */
export function isLoopbackOrigin(origin: string): boolean {
  let host: string
  try {
    host = new URL(origin).hostname
  } catch {
    return false
  }
  return host === "localhost" || host.endsWith(".localhost") || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}
