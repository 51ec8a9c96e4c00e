import { isRedirect, type RequestEvent } from "@sveltejs/kit"
import { describe, expect, it, vi } from "vitest"
import { ServiceUnavailable, SvelteKitAuth } from "@portcullis/sveltekit"
import { outageFixture } from "../../core/test/outage-fixture.js"

/** Issue #13: with the session store down, `locals.auth()` reports unavailable, never `null`. */
describe("locals.auth() while the session store is down", () => {
  const store = outageFixture()
  const { handle } = SvelteKitAuth(store.config({ basePath: undefined }))

  async function eventWith(cookie: string) {
    const url = new URL("http://localhost:5173/account")
    const event = { url, request: new Request(url, { headers: { cookie } }), locals: {} as App.Locals, cookies: { set: vi.fn() } }
    await handle({ event: event as unknown as RequestEvent, resolve: async () => new Response("ok") })
    return event
  }

  it("rejects with ServiceUnavailable, and reads the session again after recovery", async () => {
    const event = await eventWith(await store.signedInCookie())
    store.down = true
    try {
      await expect(event.locals.auth()).rejects.toBeInstanceOf(ServiceUnavailable)
    } finally {
      store.down = false
    }
    expect(await event.locals.auth()).toMatchObject({ user: { name: "Ada Lovelace" } })
  })

  it("10 concurrent reads during the outage all reject with ServiceUnavailable", async () => {
    const events = await Promise.all(Array.from({ length: 10 }, async () => eventWith(await store.signedInCookie())))
    store.down = true
    try {
      const outcomes = await Promise.allSettled(events.map((e) => e.locals.auth()))
      for (const o of outcomes) expect(o.status === "rejected" && o.reason instanceof ServiceUnavailable).toBe(true)
    } finally {
      store.down = false
    }
  })
})

describe("the signOut form action while the session store is down", () => {
  const store = outageFixture()
  const { signOut } = SvelteKitAuth(store.config({ basePath: undefined }))

  it("redirects to the error page with ServiceUnavailable and sets no cookie (the session stays)", async () => {
    const cookie = await store.signedInCookie()
    const url = new URL("http://localhost:5173/signout")
    const set = vi.fn()
    const request = new Request(url, { method: "POST", headers: { cookie, origin: url.origin, "content-type": "application/x-www-form-urlencoded" }, body: "redirectTo=/bye" })
    store.down = true
    let location: string | undefined
    try {
      await signOut({ url, request, locals: {}, cookies: { set } } as unknown as RequestEvent)
    } catch (e) {
      if (!isRedirect(e)) throw e
      location = e.location
    } finally {
      store.down = false
    }
    expect(location).toBe("http://localhost:5173/auth/error?error=ServiceUnavailable")
    expect(set.mock.calls.filter(([name]) => name === "authjs.session-token")).toEqual([])
  })
})
