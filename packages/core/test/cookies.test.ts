import { describe, expect, it } from "vitest"
import { Browser, SECRET, credentialsConfig, direct, parseSetCookie } from "./helpers.js"
import { decode } from "@portcullis/core/jwt"
import { cookieValue, parseCookies } from "../src/lib/cookies.js"

/** Cookie names and attributes (spec §5.9; checklist T35–T37). */
describe("cookie attributes over http (development)", () => {
  it("sets HttpOnly, SameSite=Lax, Path=/ and no Secure or prefix", async () => {
    const browser = new Browser(direct(credentialsConfig()))
    await browser.signIn()
    const session = browser.jar.get("authjs.session-token")!
    expect(session.attributes).toMatchObject({ httponly: true, samesite: "Lax", path: "/" })
    expect(session.attributes.secure).toBeUndefined()
    expect(session.attributes.domain).toBeUndefined()
    expect(new Date(session.attributes.expires as string).getTime()).toBeGreaterThan(Date.now() + 29 * 86400_000)
    expect(browser.jar.get("authjs.csrf-token")!.attributes).toMatchObject({ httponly: true, samesite: "Lax", path: "/" })
  })
})

describe("cookie attributes over https", () => {
  it("adds Secure with the __Secure- prefix, and __Host- for the CSRF cookie", async () => {
    const browser = new Browser(direct(credentialsConfig()), "https://app.example")
    await browser.signIn()
    expect([...browser.jar.keys()].sort()).toEqual(["__Host-authjs.csrf-token", "__Secure-authjs.session-token"])
    for (const c of browser.jar.values()) expect(c.attributes).toMatchObject({ secure: true, httponly: true, path: "/", samesite: "Lax" })
    expect(browser.jar.get("__Host-authjs.csrf-token")!.attributes.domain).toBeUndefined()
  })

  it("detects https behind a trusted proxy from X-Forwarded-Proto", async () => {
    const browser = new Browser(direct(credentialsConfig({ trustHost: true })), "http://internal:8080")
    await browser.request("/auth/csrf", { headers: { "x-forwarded-proto": "https", "x-forwarded-host": "app.example" } })
    expect(browser.jar.has("__Host-authjs.csrf-token")).toBe(true)
  })

  it("useSecureCookies forces the secure names on http", async () => {
    const browser = new Browser(direct(credentialsConfig({ useSecureCookies: true })))
    await browser.request("/auth/csrf")
    expect(browser.jar.has("__Host-authjs.csrf-token")).toBe(true)
  })
})

describe("cookie overrides (spec §2.16)", () => {
  it("renames the session cookie and uses the new name as the key salt", async () => {
    const browser = new Browser(direct(credentialsConfig({ cookies: { sessionToken: { name: "app.session", options: { sameSite: "strict" } } } })))
    await browser.signIn()
    const cookie = browser.jar.get("app.session")!
    expect(cookie.attributes).toMatchObject({ samesite: "Strict", httponly: true })
    expect(await decode({ token: cookie.value, secret: SECRET, salt: "app.session" })).toMatchObject({ sub: "user-ada" })
    expect((await browser.session()).user.name).toBe("Ada Lovelace")
  })
})

describe("large sessions are chunked (T37)", () => {
  const config = credentialsConfig({
    callbacks: {
      jwt({ token, trigger, session }) {
        if (trigger === "update") token.blob = session?.size ? "x".repeat(session.size) : undefined
        return token
      },
    },
  })

  it("splits a 10 KB token into cookies of at most 4096 bytes, reassembles it, and clears stale chunks", async () => {
    const browser = new Browser(direct(config))
    await browser.signIn()
    let csrfToken = await browser.csrfToken()
    await browser.request("/auth/session", { json: { csrfToken, data: { size: 10_000 } } })
    const chunks = [...browser.jar.keys()].filter((k) => k.startsWith("authjs.session-token."))
    expect(chunks.length).toBeGreaterThanOrEqual(3)
    for (const header of browser.lastSetCookies) expect(header.name.length + header.value.length).toBeLessThan(4096)
    expect(browser.jar.has("authjs.session-token")).toBe(false)
    expect((await browser.session()).user.name).toBe("Ada Lovelace")

    csrfToken = await browser.csrfToken()
    await browser.request("/auth/session", { json: { csrfToken, data: { size: 0 } } })
    const deleted = browser.lastSetCookies.filter((c) => c.attributes["max-age"] === "0").map((c) => c.name)
    expect(deleted.sort()).toEqual(chunks.sort())
    expect([...browser.jar.keys()].filter((k) => k.startsWith("authjs.session-token"))).toEqual(["authjs.session-token"])
    expect((await browser.session()).user.name).toBe("Ada Lovelace")
  })
})

describe("Set-Cookie serialisation", () => {
  it("never lets a value inject attributes", async () => {
    const browser = new Browser(direct(credentialsConfig()))
    const response = await browser.request("/auth/signin?callbackUrl=" + encodeURIComponent("/a;Domain=evil.example\r\nX: y"))
    for (const header of response.headers.getSetCookie()) {
      expect(parseSetCookie(header).attributes.domain).toBeUndefined()
    }
  })
})

describe("cookieValue reads one cookie as parseCookies reads them all", () => {
  it("agrees with parseCookies on thousands of random headers", () => {
    const pieces = ["a", "b", "authjs.session-token", " authjs.session-token", "x", "=", ";", " ", "\"", "%", "%41", "%E0%A4%A", "\t", "é", ".", "0"]
    let seed = 42
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
    for (let i = 0; i < 5000; i++) {
      let header = ""
      const length = Math.floor(random() * 24)
      for (let j = 0; j < length; j++) header += pieces[Math.floor(random() * pieces.length)]
      const all = parseCookies(header)
      for (const name of ["a", "b", "authjs.session-token", "x", "é"]) {
        expect(cookieValue(header, name), JSON.stringify(header)).toBe(all[name])
      }
    }
  })
})
