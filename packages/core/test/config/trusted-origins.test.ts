import { describe, expect, it } from "vitest"
import { compileTrustedOrigins, envTrustedOrigins, isLoopbackOrigin } from "../../src/lib/config/trusted-origins.js"

/**
 * The origin list a deployment trusts besides `AUTH_URL` (`lib/config/trusted-origins.ts`):
 * how a pattern is read, why a bad one is refused (the message is what the operator sees at
 * start-up), which platform variables join the list, and which origins count as loopback.
 * The attacks on the list are in `../security/origin-trust*.test.ts`.
 *
 * A refusal is thrown, or — a wildcard inside the registrable domain, found once the Public
 * Suffix List has loaded — answered by the list's `checked`.
 */
const refusal = async (pattern: unknown) => {
  try {
    const problem = await compileTrustedOrigins([pattern as string]).checked
    if (problem) return problem.message
  } catch (error) {
    return (error as Error).message
  }
  throw new Error(`${JSON.stringify(pattern)} was accepted`)
}

describe("a refused pattern says why, and shows the form to write", () => {
  it.each([
    [42, "is not a string"],
    [null, "is not a string"],
    ["app.example.com", "is not an http(s) origin without a path"],
    ["https://app.example.com/auth", "is not an http(s) origin without a path"],
    ["https://app.example.com?x", "is not an http(s) origin without a path"],
    ["ftp://app.example.com", "is not an http(s) origin without a path"],
    ["xhttps://app.example.com", "is not an http(s) origin without a path"],
    ["https://u@app.example.com", "has userinfo"],
    ["https://u@*.example.com", "has userinfo"],
    ["https://app.example.com:99999", "is not a valid origin"],
    ["https://a b.example.com", "is not a valid origin"],
    // URL would read these as another host: refused rather than silently rewritten.
    ["https://0x7f.0.0.1", "is not a valid origin"],
    ["https://app.example.com:0443", "is not a valid origin"],
    ["https://*.example.com:0", "has an invalid port"],
    ["https://*.example.com:65536", "has an invalid port"],
    ["https://*.exa_mple.com", "has a host that is not a DNS name"],
    ["https://*.example.com:x", "has a host that is not a DNS name"],
    // A port is only the digits that end the host.
    ["https://*.example.com:0x", "has a host that is not a DNS name"],
    ["https://*.com", "has a wildcard in its last two labels"],
    ["https://a.*.com", "has a wildcard in its last two labels"],
    ["https://*.co.uk", "has a wildcard inside the registrable domain (x.co.uk)"],
  ])("%j: %s", async (pattern, why) => {
    const message = await refusal(pattern)
    expect(message).toContain(`trustedOrigins: ${JSON.stringify(pattern)} ${why}`)
    expect(message).toContain(`Write "https://app.example.com" or "https://*.example.com".`)
  })

  it("a list without wildcards needs no Public Suffix List: nothing left to check", async () => {
    expect(await compileTrustedOrigins(["https://app.example.com", "http://localhost:3000"]).checked).toBeUndefined()
    expect(await compileTrustedOrigins([]).checked).toBeUndefined()
  })

  it("a list whose wildcards stand left of the registrable domain checks out", async () => {
    expect(await compileTrustedOrigins(["https://*.example.com", "https://*.preview.example.co.uk", "https://app.example.com"]).checked).toBeUndefined()
  })

  it("the first wildcard inside a registrable domain is the one named", async () => {
    expect(await refusal("https://*.github.io")).toContain("(x.github.io)")
    const problem = await compileTrustedOrigins(["https://*.example.com", "https://*.pages.dev", "https://*.co.uk"]).checked
    expect(problem?.message).toContain('"https://*.pages.dev" has a wildcard inside the registrable domain (x.pages.dev)')
  })

  it("the highest port is allowed, in exact and wildcard patterns", () => {
    expect(compileTrustedOrigins(["https://*.example.com:65535"]).has("https://a.example.com:65535")).toBe(true)
    expect(compileTrustedOrigins(["https://*.example.com:1"]).has("https://a.example.com:1")).toBe(true)
  })
})

describe("patterns are read as URL.origin prints origins", () => {
  it("surrounding spaces and case do not matter", () => {
    const list = compileTrustedOrigins(["  HTTPS://App.Example.com  ", " https://*.Preview.Example.com "])
    expect(list.has("https://app.example.com")).toBe(true)
    expect(list.has("https://pr-1.preview.example.com")).toBe(true)
  })

  it("a pattern drops its scheme's default port, as URL.origin does, and keeps any other", () => {
    expect(compileTrustedOrigins(["http://app.example.com:80"]).has("http://app.example.com")).toBe(true)
    expect(compileTrustedOrigins(["https://app.example.com:443"]).has("https://app.example.com")).toBe(true)
    expect(compileTrustedOrigins(["http://app.example.com:443"]).has("http://app.example.com:443")).toBe(true)
    expect(compileTrustedOrigins(["https://app.example.com:80"]).has("https://app.example.com:80")).toBe(true)
    expect(compileTrustedOrigins(["https://*.example.com:443"]).has("https://a.example.com")).toBe(true)
    expect(compileTrustedOrigins(["http://*.example.com:80"]).has("http://a.example.com")).toBe(true)
    expect(compileTrustedOrigins(["http://*.example.com:443"]).has("http://a.example.com:443")).toBe(true)
    expect(compileTrustedOrigins(["http://*.example.com:443"]).has("http://a.example.com")).toBe(false)
    expect(compileTrustedOrigins(["https://*.example.com:80"]).has("https://a.example.com:80")).toBe(true)
    expect(compileTrustedOrigins(["https://*.example.com:80"]).has("https://a.example.com")).toBe(false)
  })

  it("a wildcard stands for letters, digits and hyphens only: never a dot, and the rest of the pattern is literal", () => {
    const list = compileTrustedOrigins(["https://a-*.b-c.example.com"])
    expect(list.has("https://a-x1-y.b-c.example.com")).toBe(true)
    expect(list.has("https://a-.b-c.example.com")).toBe(true)
    expect(list.has("https://a-x.y.b-c.example.com")).toBe(false)
    expect(list.has("https://a-x.b-cxexample.com")).toBe(false)
    expect(list.has("https://a-x_y.b-c.example.com")).toBe(false)
    expect(list.has("https://xa-x.b-c.example.com")).toBe(false)
    expect(list.has("https://a-x.b-c.example.com.evil.example")).toBe(false)
    // A whole-label `*` needs at least one character.
    expect(compileTrustedOrigins(["https://*.example.com"]).has("https://.example.com")).toBe(false)
  })

  it("the list answers for each of its patterns, exact and wildcard", () => {
    const list = compileTrustedOrigins(["https://one.example", "https://*.two.example.com", "https://three.example", "https://*.four.example.com"])
    for (const origin of ["https://one.example", "https://a.two.example.com", "https://three.example", "https://b.four.example.com"]) expect(list.has(origin)).toBe(true)
    expect(list.has("https://five.example")).toBe(false)
    expect(list.patterns).toEqual(["https://one.example", "https://*.two.example.com", "https://three.example", "https://*.four.example.com"])
  })
})

describe("the platform's deployment URLs join the list", () => {
  it("each Vercel variable is a host served over https; AUTH_TRUSTED_ORIGINS' empty entries are dropped", () => {
    expect(envTrustedOrigins({ AUTH_TRUSTED_ORIGINS: " https://a.example ,, ,https://b.example" })).toEqual(["https://a.example", "https://b.example"])
    expect(envTrustedOrigins({ VERCEL_PROJECT_PRODUCTION_URL: " myapp.example.com " })).toEqual(["https://myapp.example.com"])
    expect(envTrustedOrigins({ VERCEL_BRANCH_URL: "MyApp-git-x.vercel.app" })).toEqual(["https://MyApp-git-x.vercel.app"])
  })

  it.each(["evil.example/path", "evil.example:443", "u@evil.example", "https://evil.example", "evil.example?x", ""])("VERCEL_URL %j adds nothing", (host) => {
    expect(envTrustedOrigins({ VERCEL_URL: host })).toEqual([])
  })

  it("CF_PAGES_URL is an https origin, its trailing slash dropped; anything else adds nothing", () => {
    expect(envTrustedOrigins({ CF_PAGES_URL: " https://abc.myapp.pages.dev/ " })).toEqual(["https://abc.myapp.pages.dev"])
    for (const url of ["http://abc.myapp.pages.dev", "https://abc.myapp.pages.dev/x", "https://u@abc.pages.dev", "xhttps://abc.pages.dev", "https://abc.pages.dev:8443", ""]) {
      expect(envTrustedOrigins({ CF_PAGES_URL: url }), url).toEqual([])
    }
  })
})

describe("loopback origins", () => {
  it.each(["http://localhost", "http://localhost:3000", "https://app.localhost", "http://[::1]:8080", "http://127.0.0.1", "http://127.255.1.2:3000", "http://127.10.200.254", "http://127.1"])("%s is loopback", (origin) => {
    expect(isLoopbackOrigin(origin)).toBe(true)
  })

  it.each(["http://localhost.evil.example", "http://evil-localhost", "http://127.0.0.1.nip.io", "http://x127.0.0.1", "http://128.0.0.1", "http://[::2]", "http://0.0.0.0", "not an origin", ""])("%s is not", (origin) => {
    expect(isLoopbackOrigin(origin)).toBe(false)
  })
})
