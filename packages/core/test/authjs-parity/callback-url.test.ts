/**
 * A `callbackUrl` is remembered as in Auth.js (issue #16 C.11): any request that carries
 * one sets the callback-url cookie (through the `redirect` callback), so a later step that
 * carries none — a custom sign-in form posting only its fields — lands there. The same
 * browser journey runs through `@auth/core` in the same test.
 */
import { describe, expect, it } from "vitest"
import { Auth as AuthJs } from "@auth/core"
import AuthJsCredentials from "@auth/core/providers/credentials"
import { Auth, type AuthConfig } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { ada, Browser, SECRET } from "../helpers.js"

const silent = { error: () => {}, warn: () => {}, debug: () => {} }
const authorize = async (c: any) => (c.username === ada.username && c.password === ada.password ? { id: "user-ada", name: "Ada" } : null)

/** Lands on the sign-in action with `?callbackUrl=`, then posts credentials without one. */
async function journey(handler: (request: Request) => Promise<Response>, callbackUrl: string) {
  const browser = new Browser(handler)
  const landing = await browser.request(`/auth/signin?callbackUrl=${encodeURIComponent(callbackUrl)}`)
  const remembered = browser.jar.get("authjs.callback-url")?.value
  const csrfToken = await browser.csrfToken()
  const signIn = await browser.request("/auth/callback/credentials", { form: { csrfToken, ...ada } })
  return { landing: landing.headers.get("location"), remembered, destination: signIn.headers.get("location") }
}

describe("a callbackUrl on any request is remembered for the steps that carry none", () => {
  const ours = (): AuthConfig => ({ secret: SECRET, trustHost: true, providers: [Credentials({ credentials: { username: {}, password: {} }, authorize })], pages: { signIn: "/login" }, logger: silent })
  const theirs = () => ({ secret: SECRET, trustHost: true, basePath: "/auth", providers: [AuthJsCredentials({ credentials: { username: {}, password: {} }, authorize })], pages: { signIn: "/login" }, logger: silent })

  it("a custom sign-in page's form without callbackUrl still lands on the page the user wanted", async () => {
    const a = await journey((r) => Auth(r, ours()), "/dashboard")
    const b = await journey((r) => AuthJs(r, theirs() as any), "/dashboard")
    expect(a.destination).toBe(b.destination)
    expect(a.destination).toBe("http://localhost:3000/dashboard")
    expect(a.remembered).toBe(b.remembered)
  })

  it("hostile: a foreign callbackUrl is not remembered as such: the redirect callback keeps the site", async () => {
    const a = await journey((r) => Auth(r, ours()), "https://evil.example/steal")
    const b = await journey((r) => AuthJs(r, theirs() as any), "https://evil.example/steal")
    // Ours writes the site URL with its trailing slash; the same address.
    expect(new URL(a.destination!).href).toBe(new URL(b.destination!).href)
    expect(new URL(a.destination!).href).toBe("http://localhost:3000/")
    expect(a.remembered).toBe(b.remembered)
  })

  it("hostile: a malformed callbackUrl is ignored, never a 500 (Auth.js answers a configuration error)", async () => {
    const browser = new Browser((r) => Auth(r, ours()))
    const response = await browser.request("/auth/session?callbackUrl=http%3A%2F%2F%5B%3A%3A1")
    expect(response.status).toBe(200)
    expect(browser.jar.get("authjs.callback-url")?.value).toBeUndefined()
  })
})

describe("the custom sign-out page gets no parameters, as in Auth.js", () => {
  it("GET /signout?callbackUrl=… redirects to pages.signOut as it is, remembering the callbackUrl for the sign-out POST", async () => {
    const config = (): AuthConfig => ({ secret: SECRET, trustHost: true, providers: [], pages: { signOut: "/bye" }, logger: silent })
    const ours = new Browser((r) => Auth(r, config()))
    const theirs = new Browser((r) => AuthJs(r, { ...config(), basePath: "/auth" } as any))
    const a = await ours.request("/auth/signout?callbackUrl=%2Fgoodbye")
    const b = await theirs.request("/auth/signout?callbackUrl=%2Fgoodbye")
    expect(new URL(a.headers.get("location")!, "http://localhost:3000").href).toBe(new URL(b.headers.get("location")!, "http://localhost:3000").href)
    expect(ours.jar.get("authjs.callback-url")?.value).toBe(theirs.jar.get("authjs.callback-url")?.value)
    const signOut = await ours.request("/auth/signout", { form: { csrfToken: await ours.csrfToken() } })
    expect(signOut.headers.get("location")).toBe("http://localhost:3000/goodbye")
  })
})

describe("a sign-in POST for a provider that signs in on the page goes to the page as it is, as in Auth.js", () => {
  it("POST /signin/credentials → the built-in sign-in page, which reads the remembered callbackUrl", async () => {
    const config = (): AuthConfig => ({ secret: SECRET, trustHost: true, providers: [Credentials({ credentials: { username: {}, password: {} }, authorize })], logger: silent })
    const ours = new Browser((r) => Auth(r, config()))
    const theirs = new Browser((r) => AuthJs(r, { ...config(), basePath: "/auth", providers: [AuthJsCredentials({ credentials: { username: {}, password: {} }, authorize })] } as any))
    const post = async (b: Browser) => b.request("/auth/signin/credentials", { form: { csrfToken: await b.csrfToken(), callbackUrl: "/dash" } })
    const a = await post(ours)
    const b = await post(theirs)
    expect(a.headers.get("location")).toBe(b.headers.get("location"))
    expect(ours.jar.get("authjs.callback-url")?.value).toBe(theirs.jar.get("authjs.callback-url")?.value)
    const page = await (await ours.request("/auth/signin")).text()
    expect(page).toContain('value="http://localhost:3000/dash"')
  })
})
