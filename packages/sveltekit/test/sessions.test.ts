import type { RequestEvent } from "@sveltejs/kit"
import { describe, expect, it, vi } from "vitest"
import Credentials from "@portcullis/core/providers/credentials"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { SvelteKitAuth, type SvelteKitAuthConfig } from "@portcullis/sveltekit"
import { Browser } from "../../core/test/helpers.js"

const config: SvelteKitAuthConfig = {
  secret: "sveltekit-unit-test-secret-0123456789abcdef",
  trustHost: true,
  adapter: MemoryAdapter(),
  session: { strategy: "database", metadata: true },
  providers: [Credentials({ credentials: { username: {} }, authorize: async ({ username }) => (username === "ada" ? { id: "u-ada", name: "Ada", email: "ada@example.test" } : null) })],
}
const origin = "http://localhost:5173"

describe("event.locals.sessions (database sessions)", () => {
  const { handle } = SvelteKitAuth(config)
  const browser = () => new Browser((request) => handle({ event: eventFor(request), resolve: vi.fn() }) as Promise<Response>, origin)

  function eventFor(request: Request) {
    return { url: new URL(request.url), request, locals: {} as App.Locals, cookies: { set: vi.fn() } } as unknown as RequestEvent
  }
  async function locals(cookie: string, headers: Record<string, string> = {}) {
    const event = eventFor(new Request(`${origin}/account`, { headers: { cookie, ...headers } }))
    await handle({ event, resolve: async () => new Response("ok") })
    return event
  }

  it("lists, revokes one (its browser is signed out), and revokes the others", async () => {
    const [laptop, phone, tablet] = [browser(), browser(), browser()]
    for (const b of [laptop, phone, tablet]) await b.signIn({ username: "ada" })
    const event = await locals(laptop.cookieHeader(), { origin })
    const listed = await event.locals.sessions.list()
    expect(listed).toHaveLength(3)
    expect(listed[0]!.current).toBe(true)
    const phoneId = (await (await locals(phone.cookieHeader())).locals.sessions.list())[0]!.id
    expect(await event.locals.sessions.revoke(phoneId)).toBe(true)
    expect(await phone.session()).toBeNull()
    expect(await event.locals.sessions.revokeOthers()).toBe(1)
    expect(await tablet.session()).toBeNull()
    expect((await laptop.session())?.user?.name).toBe("Ada")
  })

  it("refuses a change from another origin even without a token to check", async () => {
    const [laptop, phone] = [browser(), browser()]
    for (const b of [laptop, phone]) await b.signIn({ username: "ada" })
    const event = await locals(laptop.cookieHeader(), { origin: "https://evil.example" })
    await expect(event.locals.sessions.revokeOthers()).rejects.toMatchObject({ type: "MissingCSRF" })
    expect((await phone.session())?.user?.name).toBe("Ada")
  })
})

describe("event.locals.sessions: step-up and two-factor enrollment (docs/step-up.md)", () => {
  const { handle } = SvelteKitAuth({ ...config, adapter: MemoryAdapter(), twoFactor: {} })
  const browser = () => new Browser((request) => handle({ event: eventFor(request), resolve: vi.fn() }) as Promise<Response>, origin)

  function eventFor(request: Request) {
    return { url: new URL(request.url), request, locals: {} as App.Locals, cookies: { set: vi.fn() } } as unknown as RequestEvent
  }
  async function locals(cookie: string) {
    const event = eventFor(new Request(`${origin}/account`, { headers: { cookie, origin } }))
    await handle({ event, resolve: async () => new Response("ok") })
    return event.locals.sessions
  }

  it("enrolls right after a sign-in; past stepUp.maxAge every change is StepUpRequired and the re-authentication page is named", async () => {
    const laptop = browser()
    await laptop.signIn({ username: "ada" })
    const sessions = await locals(laptop.cookieHeader())
    expect(await sessions.stepUpStatus()).toMatchObject({ signedIn: true, fresh: true })
    expect((await sessions.twoFactor.start()).uri).toContain("ada%40example.test")
    expect(await sessions.twoFactor.status()).toEqual({ enabled: false, pending: true, backupCodesLeft: 0 })
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 11 * 60_000 })
    try {
      const later = await locals(laptop.cookieHeader())
      await expect(later.twoFactor.confirm("123456")).rejects.toMatchObject({ type: "StepUpRequired" })
      await expect(later.revokeOthers()).rejects.toMatchObject({ type: "StepUpRequired" })
      await expect(later.requireStepUp()).rejects.toMatchObject({ type: "StepUpRequired" })
      expect(later.reauthenticateUrl("/account")).toBe(`${origin}/auth/reauthenticate?callbackUrl=%2Faccount`)
    } finally {
      vi.useRealTimers()
    }
  })
})
