import { describe, expect, it } from "vitest"
import Credentials from "@portcullis/core/providers/credentials"
import { getSession, SolidAuth, type SolidAuthConfig } from "@portcullis/solid-start"

const origin = "http://localhost:3000"
const base: SolidAuthConfig = {
  secret: "solid-start-unit-test-secret-0123456789abcdef",
  trustHost: true,
  providers: [Credentials({ credentials: { username: {} }, authorize: async ({ username }) => (username === "ada" ? { id: "1", name: "Ada" } : null) })],
}

/** Signs in through the handlers as a browser would (CSRF token first) and returns the session cookie. */
async function signInThrough(POST: ReturnType<typeof SolidAuth>["POST"], GET: ReturnType<typeof SolidAuth>["GET"], prefix: string): Promise<string> {
  const csrf = await GET({ request: new Request(`${origin}${prefix}/csrf`) })
  const { csrfToken } = (await csrf.json()) as { csrfToken: string }
  const csrfCookie = csrf.headers.getSetCookie()[0]!.split(";")[0]!
  const response = await POST({
    request: new Request(`${origin}${prefix}/callback/credentials`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie, origin },
      body: new URLSearchParams({ csrfToken, username: "ada", callbackUrl: "/" }),
    }),
  })
  expect(response.status).toBe(302)
  return response.headers.getSetCookie().find((c) => c.startsWith("authjs.session-token="))!.split(";")[0]!
}

describe("SolidAuth", () => {
  it("derives basePath from the default prefix /api/auth", async () => {
    const { GET } = SolidAuth(base)
    const response = await GET({ request: new Request(`${origin}/api/auth/providers`) })
    expect(await response.json()).toHaveProperty("credentials.callbackUrl", `${origin}/api/auth/callback/credentials`)
  })

  it("honours a custom prefix, end to end through getSession", async () => {
    const config = { ...base, prefix: "/auth-api/" }
    const { GET, POST } = SolidAuth(config)
    const cookie = await signInThrough(POST, GET, "/auth-api")
    const request = new Request(`${origin}/dashboard`, { headers: { cookie } })
    expect(await getSession(request, config)).toMatchObject({ user: { name: "Ada" } })
  })

  it("routes webauthn-options to core (Auth.js drops it)", async () => {
    const { GET } = SolidAuth(base)
    const response = await GET({ request: new Request(`${origin}/api/auth/webauthn-options/webauthn`) })
    expect(response.status).not.toBe(404)
    expect(response.headers.get("location") ?? "").not.toContain("UnknownAction")
  })

  it("answers an unknown action with core's 400", async () => {
    const { GET } = SolidAuth(base)
    expect((await GET({ request: new Request(`${origin}/api/auth/nope`) })).status).toBe(400)
  })

  it("keeps the CSRF check on sign-in", async () => {
    const { POST } = SolidAuth(base)
    const response = await POST({
      request: new Request(`${origin}/api/auth/callback/credentials`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "username=ada" }),
    })
    expect(response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="))).toBe(false)
  })
})

describe("getSession", () => {
  it("is null without a session cookie", async () => {
    expect(await getSession(new Request(`${origin}/`), base)).toBeNull()
  })

  it("forwards only the cookie header", async () => {
    const { GET, POST } = SolidAuth(base)
    const cookie = await signInThrough(POST, GET, "/api/auth")
    // A forged forwarded host must not matter for reading a session.
    const request = new Request(`${origin}/`, { headers: { cookie, "x-forwarded-host": "evil.example", authorization: "Bearer x" } })
    expect(await getSession(request, base)).toMatchObject({ user: { name: "Ada" } })
  })

  it("throws on a configuration error instead of pretending there is no session", async () => {
    await expect(getSession(new Request(`${origin}/`), { ...base, secret: undefined as never, basePath: "no-slash" })).rejects.toThrow()
  })
})
