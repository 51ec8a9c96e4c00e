/**
 * Routes another party calls by design (`from: "anywhere"`): an identity provider's
 * cross-site form post, a SCIM client's PUT/PATCH/DELETE with `application/scim+json`. No
 * origin or CSRF check there — and only there: the same route without `from` refuses a
 * cross-site post, core's own actions keep answering only GET and POST and never parse a
 * `+json` body, and the protocol answers (`text`, `empty`, `json` with a media type and
 * headers) never let an extension set a cookie or override core's security headers.
 */
import { describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import { defineExtension, type ExtensionRequest } from "@portcullis/core/extension"
import { Browser, captureLogger, credentialsConfig, direct } from "../helpers.js"

const SCIM = "application/scim+json"

/** What each handler saw: method, body, and whether a session was there. */
interface Seen {
  method: string
  body: Record<string, unknown>
}

/** An SSO-like extension: an ACS endpoint, a SCIM resource, a metadata document. */
function sso(seen: Seen[]) {
  const record = (req: ExtensionRequest<unknown>) => void seen.push({ method: req.method, body: req.body })
  return defineExtension({
    id: "sso",
    routes: [
      { method: "POST", path: "acs", access: "anyone", from: "anywhere", handler: (req) => (record(req), { json: { received: req.body.SAMLResponse ?? null } }) },
      // What an OAuth endpoint reads to refuse a repeated parameter: the form as sent.
      { method: "POST", path: "form", access: "anyone", from: "anywhere", handler: (req) => ({ json: { form: req.form ? [...req.form] : null, body: req.body } }) },
      // The same shape, but a site route: the default `from` keeps core's checks.
      { method: "POST", path: "site", access: "anyone", handler: (req) => (record(req), { json: { ok: true } }) },
      { method: "PUT", path: "scim/Users/:id", access: "anyone", from: "anywhere", handler: (req) => (record(req), { json: { id: req.params.id, ...req.body }, contentType: SCIM, headers: { ETag: 'W/"2"', "Set-Cookie": "stolen=1", Location: "https://idp.example/Users/1" } }) },
      { method: "PATCH", path: "scim/Users/:id", access: "anyone", from: "anywhere", handler: (req) => (record(req), { json: { patched: req.body.Operations ?? null }, contentType: SCIM }) },
      { method: "DELETE", path: "scim/Users/:id", access: "anyone", from: "anywhere", handler: (req) => (record(req), { empty: true, headers: { "Set-Cookie": "x=1", "X-Request-Id": "r1" } }) },
      {
        method: "GET",
        path: "metadata",
        access: "anyone",
        handler: () => ({
          text: "<EntityDescriptor/>",
          contentType: "application/samlmetadata+xml",
          headers: { "Content-Security-Policy": "default-src *", "Content-Type": "text/html", "X-Frame-Options": "ALLOWALL", "Set-Cookie": "a=b", "X-Split": "a\r\nSet-Cookie: evil=1", "X-Kept": "yes" },
        }),
      },
      { method: "GET", path: "plain", access: "anyone", handler: () => ({ text: "hello", contentType: "text/plain" }) },
      // Both read the session: the site route sees it, the one called from anywhere never does.
      { method: "POST", path: "who", access: "anyone", from: "anywhere", handler: async (req) => ({ json: { session: (await req.session())?.userId ?? null } }) },
      { method: "POST", path: "who-site", access: "anyone", handler: async (req) => ({ json: { session: (await req.session())?.userId ?? null } }) },
      { method: "POST", path: "must", access: "anyone", from: "anywhere", handler: async (req) => ({ json: { session: (await req.requireSession()).userId } }) },
    ],
  })
}

function setup() {
  const seen: Seen[] = []
  const log = captureLogger()
  const config = credentialsConfig({ extensions: [sso(seen)], logger: log.logger })
  return { seen, log, config, browser: new Browser(direct(config)) }
}

/** A request as another site (or a machine client) sends it: no cookies of ours, another Origin. */
function foreign(config: AuthConfig, path: string, init: RequestInit = {}) {
  return Auth(new Request(new URL(path, "http://localhost:3000"), init), config)
}

describe("a from: \"anywhere\" POST route", () => {
  it("takes a cross-site form post without a CSRF token (an IdP's SAML response)", async () => {
    const { config, seen } = setup()
    const response = await foreign(config, "/auth/sso/acs", {
      method: "POST",
      headers: { origin: "https://idp.example", "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "cross-site" },
      body: new URLSearchParams({ SAMLResponse: "PHNhbWw+", RelayState: "r" }).toString(),
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ received: "PHNhbWw+" })
    expect(seen).toEqual([{ method: "POST", body: { SAMLResponse: "PHNhbWw+", RelayState: "r" } }])
  })

  it("sees a url-encoded body as sent in req.form, repeated names kept (body keeps the last); a JSON body has none", async () => {
    const { config } = setup()
    const form = await foreign(config, "/auth/sso/form", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "resource=a&resource=b&code=1&code=2" })
    expect(await form.json()).toEqual({ form: [["resource", "a"], ["resource", "b"], ["code", "1"], ["code", "2"]], body: { resource: "b", code: "2" } })
    const json = await foreign(config, "/auth/sso/form", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code: "1" }) })
    expect(await json.json()).toEqual({ form: null, body: { code: "1" } })
  })

  it("is the exception: the same route without from refuses that post with MissingCSRF, before its handler", async () => {
    const { config, seen } = setup()
    const response = await foreign(config, "/auth/sso/site", {
      method: "POST",
      headers: { origin: "https://idp.example", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ SAMLResponse: "PHNhbWw+" }).toString(),
    })
    expect(response.status).toBe(403)
    expect(await response.json()).toMatchObject({ error: "MissingCSRF" })
    expect(seen).toEqual([])
  })
})

describe("a from: \"anywhere\" route and the browser's session", () => {
  it("never sees it, even sent along with the request: session() is null, requireSession() is 401", async () => {
    const { browser } = setup()
    await browser.signIn()
    const csrfToken = await browser.csrfToken()
    // The site route, with the token, sees the session: the cookie is there.
    expect(await (await browser.request("/auth/sso/who-site", { form: { csrfToken } })).json()).toEqual({ session: "user-ada" })
    const who = await browser.request("/auth/sso/who", { form: { x: "1" }, headers: { origin: "https://idp.example" } })
    expect(await who.json()).toEqual({ session: null })
    const must = await browser.request("/auth/sso/must", { form: { x: "1" }, headers: { origin: "https://idp.example" } })
    expect(must.status).toBe(401)
    // The session itself is untouched.
    expect((await browser.session()).user.email).toBe("ada@example.com")
  })
})

describe("PUT, PATCH and DELETE routes", () => {
  it("reach their handlers with the application/scim+json body parsed", async () => {
    const { config, seen } = setup()
    const put = await foreign(config, "/auth/sso/scim/Users/u1", { method: "PUT", headers: { "content-type": SCIM }, body: JSON.stringify({ userName: "ada@acme.com", active: true }) })
    expect(put.status).toBe(200)
    expect(await put.json()).toEqual({ id: "u1", userName: "ada@acme.com", active: true })
    const patch = await foreign(config, "/auth/sso/scim/Users/u1", { method: "PATCH", headers: { "content-type": SCIM }, body: JSON.stringify({ Operations: [{ op: "replace", path: "active", value: false }] }) })
    expect(patch.status).toBe(200)
    expect(await patch.json()).toEqual({ patched: [{ op: "replace", path: "active", value: false }] })
    expect(seen.map((s) => s.method)).toEqual(["PUT", "PATCH"])
    expect(seen[0]!.body).toEqual({ userName: "ada@acme.com", active: true })
  })

  it("answer JSON in the protocol's media type with its headers, never its Set-Cookie", async () => {
    const { config } = setup()
    const put = await foreign(config, "/auth/sso/scim/Users/u1", { method: "PUT", headers: { "content-type": SCIM }, body: "{}" })
    expect(put.headers.get("content-type")).toBe("application/scim+json; charset=utf-8")
    expect(put.headers.get("etag")).toBe('W/"2"')
    expect(put.headers.get("location")).toBe("https://idp.example/Users/1")
    expect(put.headers.getSetCookie()).toEqual([])
    expect(put.headers.get("cache-control")).toContain("no-store")
  })

  it("DELETE: the handler gets no body, and the answer is 204 with none, without the extension's cookie", async () => {
    const { config, seen } = setup()
    const response = await foreign(config, "/auth/sso/scim/Users/u1", { method: "DELETE", headers: { "content-type": SCIM } })
    expect(response.status).toBe(204)
    expect(await response.text()).toBe("")
    expect(response.headers.get("x-request-id")).toBe("r1")
    expect(response.headers.getSetCookie()).toEqual([])
    expect(seen).toEqual([{ method: "DELETE", body: {} }])
  })

  it("DELETE with a body sent along: it is not read (a DELETE's body has no meaning the route could rely on)", async () => {
    const { config, seen } = setup()
    const response = await foreign(config, "/auth/sso/scim/Users/u1", { method: "DELETE", headers: { "content-type": SCIM }, body: JSON.stringify({ userName: "smuggled" }) })
    expect(response.status).toBe(204)
    expect(seen).toEqual([{ method: "DELETE", body: {} }])
  })

  it.each([
    ["a +json type with a suffix after it", "application/scim+json-seq"],
    ["a +json type not under application/", "text/application/scim+json"],
    ["a +json type with no subtype", "application/+json"],
  ])("%s (%s) is not parsed as JSON", async (_what, type) => {
    const { config, seen } = setup()
    const response = await foreign(config, "/auth/sso/scim/Users/u1", { method: "PUT", headers: { "content-type": type }, body: JSON.stringify({ userName: "ada@acme.com" }) })
    expect(response.status).toBe(200)
    expect(seen).toEqual([{ method: "PUT", body: {} }])
  })

  it("a malformed scim+json body is the client's 400, not a 500", async () => {
    const { config, seen, log } = setup()
    const response = await foreign(config, "/auth/sso/scim/Users/u1", { method: "PUT", headers: { "content-type": SCIM }, body: "{not json" })
    expect(response.status).toBe(400)
    expect(seen).toEqual([])
    expect(log.lines.join("\n")).not.toMatch(/\n\s+at /)
  })

  it("an unrouted method under the extension is 405 with every method the path answers", async () => {
    const { config } = setup()
    const response = await foreign(config, "/auth/sso/scim/Users/u1", { method: "POST", headers: { "content-type": SCIM }, body: "{}" })
    expect(response.status).toBe(405)
    expect(response.headers.get("allow")).toBe("PUT, PATCH, DELETE")
  })
})

describe("core's own actions", () => {
  it.each(["PUT", "PATCH", "DELETE"])("still answer %s with 405", async (method) => {
    const { config } = setup()
    for (const path of ["/auth/session", "/auth/signout", "/auth/callback/credentials"]) {
      const response = await foreign(config, path, { method, headers: { "content-type": "application/json" }, ...(method !== "DELETE" && { body: "{}" }) })
      expect(response.status, `${method} ${path}`).toBe(405)
      expect(response.headers.get("allow")).not.toMatch(/PUT|PATCH|DELETE/)
    }
  })

  it("never parse a +json body: a sign-out posted as application/foo+json carries no CSRF token, so it signs nobody out", async () => {
    const { browser } = setup()
    await browser.signIn()
    const csrfToken = await browser.csrfToken()
    const response = await browser.request("/auth/signout", { method: "POST", headers: { "content-type": "application/foo+json" }, body: JSON.stringify({ csrfToken }) })
    // Read as no body at all: core's refusal of a sign-out without its token.
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/signin?error=MissingCSRF")
    expect((await browser.session())?.user?.email).toBe("ada@example.com")
    // The same token as application/json is read (core's JSON bodies), and signs out.
    const json = await browser.request("/auth/signout", { json: { csrfToken } })
    expect(json.status).toBe(302)
    expect(await browser.session()).toBeNull()
  })
})

describe("text answers", () => {
  it("carry the media type with a charset, drop the headers core alone sets, and never a header with CR/LF", async () => {
    const { config } = setup()
    const response = await foreign(config, "/auth/sso/metadata")
    expect(response.status).toBe(200)
    expect(await response.text()).toBe("<EntityDescriptor/>")
    expect(response.headers.get("content-type")).toBe("application/samlmetadata+xml; charset=utf-8")
    expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'; sandbox")
    expect(response.headers.get("x-frame-options")).toBeNull()
    expect(response.headers.getSetCookie()).toEqual([])
    expect(response.headers.get("x-split")).toBeNull()
    expect(response.headers.get("x-kept")).toBe("yes")
    expect(response.headers.get("cache-control")).toContain("no-store")
  })

  it("text/plain gets charset=utf-8", async () => {
    const { config } = setup()
    const response = await foreign(config, "/auth/sso/plain")
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8")
    expect(await response.text()).toBe("hello")
  })
})

describe("answers of the wrong kind", () => {
  it.each([
    ["text as text/html", { text: "<script>alert(1)</script>", contentType: "text/html" }],
    ["text as application/xhtml+xml", { text: "<html/>", contentType: "application/xhtml+xml" }],
    ["JSON as text/html", { json: { name: "<script>alert(1)</script>" }, contentType: "text/html" }],
    ["JSON as text/plain", { json: { a: 1 }, contentType: "text/plain" }],
    ["a malformed media type", { text: "x", contentType: "text/plain\r\nSet-Cookie: a=b" }],
  ])("%s is the extension's bug: a 500, nothing of the body sent", async (_name, answer) => {
    const log = captureLogger()
    const ext = defineExtension({ id: "docs", routes: [{ method: "GET", path: "doc", access: "anyone", handler: () => answer as never }] })
    const response = await foreign(credentialsConfig({ extensions: [ext], logger: log.logger }), "/auth/docs/doc")
    expect(response.status).toBe(500)
    expect(response.headers.get("content-type")).toBe("application/json")
    expect(await response.text()).not.toContain("<")
    expect(log.lines.join("\n")).toMatch(/media type|answer pages with req\.page/)
  })

  it("a text document is never sniffed, framed or run: nosniff and a sandboxing policy", async () => {
    const ext = defineExtension({ id: "docs", routes: [{ method: "GET", path: "logo", access: "anyone", handler: () => ({ text: "<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>", contentType: "image/svg+xml" }) }] })
    const response = await foreign(credentialsConfig({ extensions: [ext] }), "/auth/docs/logo")
    expect(response.status).toBe(200)
    expect(response.headers.get("x-content-type-options")).toBe("nosniff")
    expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'; sandbox")
  })
})

describe("the configuration", () => {
  it.each([
    [{ method: "PUT", path: "x", access: "anyone", handler() {} }, /PUT routes are for machine clients/],
    [{ method: "DELETE", path: "x", access: "anyone", from: "site", handler() {} }, /DELETE routes are for machine clients/],
    [{ method: "PATCH", path: "x", from: "anywhere", handler() {} }, /must be access: "anyone"/],
    [{ method: "POST", path: "x", access: "user", from: "anywhere", handler() {} }, /must be access: "anyone"/],
    [{ method: "POST", path: "x", access: "anyone", from: "elsewhere", handler() {} }, /from must be "site" or "anywhere"/],
    [{ method: "OPTIONS", path: "x", access: "anyone", from: "anywhere", handler() {} }, /method/],
  ])("refuses the route %j", async (route, message) => {
    const log = captureLogger()
    const config = credentialsConfig({ extensions: [{ id: "x", routes: [route] }] as never, logger: log.logger })
    const response = await Auth(new Request("http://localhost:3000/auth/session"), config)
    expect(response.status).toBe(500)
    expect(log.lines.join("\n")).toMatch(message)
  })
})
