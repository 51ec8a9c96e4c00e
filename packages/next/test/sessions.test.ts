import { beforeEach, describe, expect, it, vi } from "vitest"
import NextAuth, { NotSignedIn, SessionManagementUnsupported } from "@portcullis/next"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { cookieHeader, nextRequestStore, origin, signInThroughHandlers, testConfig } from "./helpers.js"

// next/headers only exists inside Next's server: the recording stand-in of helpers.ts.
vi.mock("next/headers", () => ({
  headers: async () => nextRequestStore.headers,
  cookies: async () => nextRequestStore.jar(),
}))

beforeEach(() => nextRequestStore.reset({ origin }))

describe("sessions (Server Components and Server Actions)", () => {
  it("lists the user's JWT sessions, revokes another one, and that browser is signed out", async () => {
    const { handlers, sessions, auth } = NextAuth(testConfig({ session: { strategy: "jwt", registry: new MemorySessionRegistry() } }))
    const laptop = await signInThroughHandlers(handlers)
    const phone = await signInThroughHandlers(handlers)

    nextRequestStore.reset({ origin, cookie: cookieHeader(laptop) })
    const listed = await sessions.list()
    expect(listed.map((s) => s.current)).toEqual([true, false])
    expect(await sessions.revoke(listed[1]!.id)).toBe(true)

    nextRequestStore.reset({ origin, cookie: cookieHeader(phone) })
    expect(await auth()).toBeNull()
    nextRequestStore.reset({ origin, cookie: cookieHeader(laptop) })
    expect((await auth())?.user?.name).toBe("Ada")
  })

  it("revokes the others, then signs out everywhere (clearing this browser's cookie through cookies())", async () => {
    const { handlers, sessions } = NextAuth(testConfig({ session: { strategy: "jwt", registry: new MemorySessionRegistry() } }))
    const laptop = await signInThroughHandlers(handlers)
    await signInThroughHandlers(handlers)
    await signInThroughHandlers(handlers)
    nextRequestStore.reset({ origin, cookie: cookieHeader(laptop) })
    expect(await sessions.revokeOthers()).toBe(2)
    expect(await sessions.list()).toHaveLength(1)
    expect(await sessions.signOutEverywhere()).toBe(1)
    expect(nextRequestStore.sets.find((c) => c.name === "authjs.session-token")?.value).toBe("")
    await expect(sessions.list()).rejects.toBeInstanceOf(NotSignedIn)
  })

  it("a cross-site Server Action call revokes nothing", async () => {
    const { handlers, sessions } = NextAuth(testConfig({ session: { strategy: "jwt", registry: new MemorySessionRegistry() } }))
    const laptop = await signInThroughHandlers(handlers)
    await signInThroughHandlers(handlers)
    nextRequestStore.reset({ origin: "https://evil.example", cookie: cookieHeader(laptop) })
    await expect(sessions.revokeOthers()).rejects.toMatchObject({ type: "MissingCSRF" })
    nextRequestStore.reset({ origin, cookie: cookieHeader(laptop) })
    expect(await sessions.list()).toHaveLength(2)
  })

  it("without a registry, JWT sessions cannot be listed (a typed error)", async () => {
    const { handlers, sessions } = NextAuth(testConfig())
    const jar = await signInThroughHandlers(handlers)
    nextRequestStore.reset({ origin, cookie: cookieHeader(jar) })
    await expect(sessions.list()).rejects.toBeInstanceOf(SessionManagementUnsupported)
  })
})

describe("sessions: step-up and two-factor enrollment (docs/step-up.md)", () => {
  it("enrolls right after a sign-in; past stepUp.maxAge the changes are StepUpRequired", async () => {
    const { handlers, sessions } = NextAuth(testConfig({ adapter: MemoryAdapter(), session: { strategy: "jwt", registry: new MemorySessionRegistry() }, twoFactor: {} }))
    const laptop = await signInThroughHandlers(handlers)
    await signInThroughHandlers(handlers)
    nextRequestStore.reset({ origin, cookie: cookieHeader(laptop) })
    expect(await sessions.stepUpStatus()).toMatchObject({ signedIn: true, fresh: true })
    expect((await sessions.twoFactor.start()).qrSvg).toMatch(/^<svg/)
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 11 * 60_000 })
    try {
      await expect(sessions.twoFactor.confirm("123456")).rejects.toMatchObject({ type: "StepUpRequired" })
      await expect(sessions.revokeOthers()).rejects.toMatchObject({ type: "StepUpRequired" })
      expect(await sessions.list()).toHaveLength(2)
      expect(await sessions.reauthenticateUrl("/account")).toBe(`${origin}/api/auth/reauthenticate?callbackUrl=%2Faccount`)
    } finally {
      vi.useRealTimers()
    }
  })
})
