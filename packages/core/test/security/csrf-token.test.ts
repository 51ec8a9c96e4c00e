import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { MissingCSRF } from "@portcullis/core/errors"
import { resolve } from "../../src/lib/config/resolve.js"
import { createContext } from "../../src/lib/context.js"
import { ensureCsrfToken, verifyCsrf } from "../../src/lib/csrf.js"
import { parseRequest } from "../../src/lib/http/request.js"
import { Browser, credentialsConfig, direct, SECRET } from "../helpers.js"

/**
 * The double-submit token's life (`lib/csrf.ts`): a browser keeps one token while its
 * cookie is genuine, so a form rendered in one tab still posts after another tab asked for
 * a token; a cookie that is not genuine is replaced, never reused. The attacks on the
 * check itself are in `attacks-2026-11-27/csrf.test.ts`.
 */
const send = direct(credentialsConfig())

describe("a browser keeps one CSRF token while its cookie is genuine", () => {
  it("a second GET /csrf answers the same token and sets no new cookie", async () => {
    const browser = new Browser(send)
    const first = await browser.csrfToken()
    const cookie = browser.jar.get("authjs.csrf-token")!.value
    expect(cookie.startsWith(`${first}|`)).toBe(true)
    const second = await browser.csrfToken()
    expect(second).toBe(first)
    expect(browser.lastSetCookies).toEqual([])
    expect(browser.jar.get("authjs.csrf-token")!.value).toBe(cookie)
  })

  it("a form rendered before another tab fetched a token still signs in", async () => {
    const browser = new Browser(send)
    const inTheForm = await browser.csrfToken()
    await browser.request("/auth/signin")
    await browser.csrfToken()
    const response = await browser.request("/auth/callback/credentials", { form: { username: "ada", password: "correct horse battery staple", csrfToken: inTheForm } })
    expect(response.headers.get("location")).toBe("http://localhost:3000")
    expect((await browser.session())?.user?.name).toBe("Ada Lovelace")
  })

  it.each([
    ["without its hash", (token: string) => token],
    ["with an empty token before the bar", (token: string) => `|${token}`],
    ["with a forged hash", (token: string) => `${token}|${"0".repeat(64)}`],
  ])("a cookie %s is replaced by a new genuine pair", async (_case, forge) => {
    const browser = new Browser(send)
    const token = await browser.csrfToken()
    browser.jar.set("authjs.csrf-token", { value: forge(token), attributes: {} })
    const fresh = await browser.csrfToken()
    expect(fresh).not.toBe(token)
    expect(fresh).toMatch(/^[0-9a-f]{64}$/)
    expect(browser.jar.get("authjs.csrf-token")!.value).toMatch(new RegExp(`^${fresh}\\|[0-9a-f]{64}$`))
  })
})

// The inner layer alone: parseRequest reads a body only for a POST, so no request through
// Auth() reaches verifyCsrf with a token and another method. Here the context is built by
// hand with what that outer layer would have kept out, to show the method check holds too.
describe("verifyCsrf accepts a token only in a POST", () => {
  const config = resolve({ secret: SECRET, trustHost: true, providers: [] }, {})

  async function contextWithToken(method: string) {
    const minted = createContext(await parseRequest(new Request("http://localhost:3000/auth/csrf"), config), config)
    const token = await ensureCsrfToken(minted)
    const cookie = `authjs.csrf-token=${encodeURIComponent(minted.setCookies[0]!.value)}`
    const ctx = createContext(await parseRequest(new Request("http://localhost:3000/auth/session", { headers: { cookie } }), config), config)
    Object.assign(ctx, { method, body: { csrfToken: token } })
    return ctx
  }

  it("the genuine token and cookie pass in a POST", async () => {
    await expect(verifyCsrf(await contextWithToken("POST"))).resolves.toBeUndefined()
  })

  it("the same pair in a GET is refused", async () => {
    await expect(verifyCsrf(await contextWithToken("GET"))).rejects.toBeInstanceOf(MissingCSRF)
  })
})

describe("the cookie's hash is Auth.js's, rotated secrets included", () => {
  // Auth.js hashes `${token}${secret}`, and a secret list prints comma-joined: a migrated app
  // with rotated secrets keeps its visitors' CSRF cookies, and its forms keep posting.
  it("with a secret list, the hash is sha256(token + the secrets joined by commas), and a form posts with it", async () => {
    const secrets = [SECRET, "an-older-secret-still-accepted-0123456789"]
    const browser = new Browser(direct(credentialsConfig({ secret: secrets })))
    const token = await browser.csrfToken()
    const expected = createHash("sha256").update(`${token}${secrets.join(",")}`).digest("hex")
    expect(browser.jar.get("authjs.csrf-token")!.value).toBe(`${token}|${expected}`)
    const response = await browser.request("/auth/callback/credentials", { form: { username: "ada", password: "correct horse battery staple", csrfToken: token } })
    expect(response.headers.get("location")).toBe("http://localhost:3000")
  })
})

describe("the Origin a browser sends", () => {
  it("the site's own Origin on a POST with the right token is accepted (every browser sends one)", async () => {
    const browser = new Browser(send)
    const csrfToken = await browser.csrfToken()
    const response = await browser.request("/auth/callback/credentials", {
      form: { username: "ada", password: "correct horse battery staple", csrfToken },
      headers: { origin: "http://localhost:3000", "sec-fetch-site": "same-origin" },
    })
    expect(response.headers.get("location")).toBe("http://localhost:3000")
    expect((await browser.session())?.user?.name).toBe("Ada Lovelace")
  })
})

describe("each refusal says why", () => {
  const config = resolve({ secret: SECRET, trustHost: true, providers: [] }, {})
  const post = async (headers: Record<string, string>) =>
    createContext(await parseRequest(new Request("http://localhost:3000/auth/signout", { method: "POST", headers }), config), config)
  const why = async (headers: Record<string, string>) => {
    const error = await verifyCsrf(await post(headers)).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(MissingCSRF)
    return (error as Error).message
  }

  it.each([
    [{}, "CSRF token missing or wrong. Send csrfToken from GET /csrf in the body."],
    [{ origin: "https://evil.example" }, "The request comes from another origin"],
    [{ "sec-fetch-site": "cross-site" }, "The browser marked the request cross-site"],
  ])("%j: %s", async (headers, message) => {
    expect(await why(headers)).toContain(message)
  })
})
