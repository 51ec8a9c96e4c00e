import { describe, expect, it, vi } from "vitest"
import Credentials from "@portcullis/core/providers/credentials"
import { MemorySessionRegistry } from "@portcullis/memory-adapter"
import { getSession, sessionsOf, SolidAuth, type SolidAuthConfig } from "@portcullis/solid-start"

const origin = "http://localhost:3000"
const options: SolidAuthConfig = {
  secret: "solid-start-unit-test-secret-0123456789abcdef",
  trustHost: true,
  session: { strategy: "jwt", registry: new MemorySessionRegistry() },
  providers: [Credentials({ credentials: { username: {} }, authorize: async ({ username }) => (username === "ada" ? { id: "1", name: "Ada" } : null) })],
}
const { GET, POST } = SolidAuth(options)

async function signIn(): Promise<string> {
  const csrf = await GET({ request: new Request(`${origin}/api/auth/csrf`) })
  const { csrfToken } = (await csrf.json()) as { csrfToken: string }
  const csrfCookie = csrf.headers.getSetCookie()[0]!.split(";")[0]!
  const response = await POST({
    request: new Request(`${origin}/api/auth/callback/credentials`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie, origin },
      body: new URLSearchParams({ csrfToken, username: "ada", callbackUrl: "/" }),
    }),
  })
  return response.headers.getSetCookie().find((c) => c.startsWith("authjs.session-token="))!.split(";")[0]!
}

const request = (cookie: string, headers: Record<string, string> = {}) => new Request(`${origin}/account`, { headers: { cookie, ...headers } })

describe("sessionsOf (JWT sessions with a registry)", () => {
  it("lists the sessions, revokes another, and signs out everywhere (this cookie cleared through setCookie)", async () => {
    const [laptop, phone] = [await signIn(), await signIn()]
    const listed = await sessionsOf(request(laptop), options).list()
    expect(listed.map((s) => s.current)).toEqual([true, false])
    expect(await sessionsOf(request(laptop, { origin }), options).revoke(listed[1]!.id)).toBe(true)
    expect(await getSession(request(phone), options)).toBeNull()
    const cleared: string[] = []
    expect(await sessionsOf(request(laptop, { origin }), options, (c) => void cleared.push(`${c.name}=${c.value}`)).signOutEverywhere()).toBe(1)
    expect(cleared).toContain("authjs.session-token=")
    expect(await getSession(request(laptop), options)).toBeNull()
  })

  it("a change from another origin is refused", async () => {
    const [laptop, phone] = [await signIn(), await signIn()]
    await expect(sessionsOf(request(laptop, { origin: "https://evil.example" }), options).revokeOthers()).rejects.toMatchObject({ type: "MissingCSRF" })
    expect((await getSession(request(phone), options))?.user?.name).toBe("Ada")
  })
})

describe("sessionsOf: step-up (docs/step-up.md)", () => {
  it("a fresh sign-in may sign out everywhere; past stepUp.maxAge it is StepUpRequired and the sessions stay", async () => {
    const [laptop, phone] = [await signIn(), await signIn()]
    expect(await sessionsOf(request(laptop), options).stepUpStatus()).toMatchObject({ signedIn: true, fresh: true })
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 11 * 60_000 })
    try {
      await expect(sessionsOf(request(laptop, { origin }), options).signOutEverywhere()).rejects.toMatchObject({ type: "StepUpRequired" })
      await expect(sessionsOf(request(laptop, { origin }), options).requireStepUp()).rejects.toMatchObject({ type: "StepUpRequired" })
      expect((await getSession(request(phone), options))?.user?.name).toBe("Ada")
    } finally {
      vi.useRealTimers()
    }
  })
})
