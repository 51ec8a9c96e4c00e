import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { Auth } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { signIn, signOut } from "@portcullis/sveltekit/client"

const origin = "http://localhost:5173"
const config = {
  secret: "sveltekit-client-test-secret-0123456789abcdef",
  trustHost: true,
  providers: [Credentials({ credentials: { username: {}, password: {} }, authorize: async ({ username, password }) => (username === "ada" && password === "lovelace" ? { id: "1", name: "Ada" } : null) })],
}

/** A browser stand-in: same-origin fetch into Auth() with a cookie jar, and a location. */
let jar: Map<string, string>
let posts: { path: string; body: URLSearchParams; headers: Headers }[]
let location: { href: string; reload: () => void }

beforeEach(() => {
  jar = new Map()
  posts = []
  location = { href: `${origin}/page`, reload: vi.fn() }
  vi.stubGlobal("window", { location })
  vi.stubGlobal("fetch", async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers)
    if (jar.size) headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "))
    headers.set("origin", origin)
    if (init.method === "POST") posts.push({ path, body: new URLSearchParams(init.body as URLSearchParams), headers })
    const response = await Auth(new Request(new URL(path, origin), { ...init, headers }), config)
    for (const c of response.headers.getSetCookie()) {
      const [pair] = c.split(";")
      const [name, value] = [pair!.slice(0, pair!.indexOf("=")), pair!.slice(pair!.indexOf("=") + 1)]
      if (/max-age=0/i.test(c)) jar.delete(name)
      else jar.set(name, value)
    }
    return response
  })
})
afterEach(() => vi.unstubAllGlobals())

describe("client signIn and signOut", () => {
  it("posts credentials with the CSRF token and navigates to the returned URL", async () => {
    await signIn("credentials", { username: "ada", password: "lovelace", redirectTo: "/account" })
    expect(posts[0]!.path).toBe("/auth/callback/credentials")
    expect(posts[0]!.body.get("csrfToken")).toMatch(/^[0-9a-f]{64}$/)
    expect(posts[0]!.headers.get("x-auth-return-redirect")).toBe("1")
    expect(location.href).toBe(`${origin}/account`)
    expect(jar.has("authjs.session-token")).toBe(true)
  })

  it("with redirect: false returns the error code of a refused sign-in and stays put", async () => {
    const result = await signIn("credentials", { username: "ada", password: "nope", redirect: false })
    expect(result).toMatchObject({ error: "CredentialsSignin", ok: false })
    expect(location.href).toBe(`${origin}/page`)
  })

  it("without a provider (or with an unknown one) goes to the sign-in page", async () => {
    await signIn(undefined, { redirectTo: "/x" })
    expect(location.href).toBe("/auth/signin?callbackUrl=%2Fx")
    location.href = `${origin}/page`
    await signIn(undefined, { basePath: "/api/auth/" })
    expect(location.href).toBe(`/api/auth/signin?callbackUrl=${encodeURIComponent(`${origin}/page`)}`)
    location.href = `${origin}/page`
    await signIn("nope")
    expect(location.href).toBe(`/auth/signin?callbackUrl=${encodeURIComponent(`${origin}/page`)}`)
  })

  it("signs out with the CSRF token", async () => {
    await signIn("credentials", { username: "ada", password: "lovelace" })
    await signOut({ redirectTo: "/bye" })
    const post = posts.at(-1)!
    expect(post.path).toBe("/auth/signout")
    expect(post.body.get("csrfToken")).toMatch(/^[0-9a-f]{64}$/)
    expect(location.href).toBe(`${origin}/bye`)
    expect(jar.has("authjs.session-token")).toBe(false)
  })
})
