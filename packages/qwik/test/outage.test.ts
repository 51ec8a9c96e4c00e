// The session slot on its own: the package entry loads Qwik City, which only resolves inside
// a Qwik app. The hook stores exactly what loadSessionSlot returns, and useSession reads it
// through sessionOf (turning an outage into ev.error(503)).
import { describe, expect, it } from "vitest"
import { ServiceUnavailable } from "@portcullis/core/errors"
import { readSession } from "@portcullis/core/integration"
import { loadSessionSlot, sessionOf } from "@portcullis/qwik/lib/session"
import { outageFixture } from "../../core/test/outage-fixture.js"

/** Issue #13: with the session store down, the Qwik reader reports unavailable, never `null`. */
describe("the onRequest session read while the session store is down", () => {
  const store = outageFixture()
  const config = store.config({ basePath: undefined })
  const origin = "http://localhost:5173"
  const read = (cookie: string) => () => readSession(origin, cookie, config, () => {})
  const outage = (error: ServiceUnavailable): never => {
    throw Object.assign(new Error("503"), { status: 503, cause: error })
  }

  it("keeps the outage (the hook does not fail public pages); useSession turns it into a 503", async () => {
    const cookie = await store.signedInCookie()
    store.down = true
    let slot
    try {
      slot = await loadSessionSlot(read(cookie))
    } finally {
      store.down = false
    }
    expect(slot).toEqual({ unavailable: expect.any(ServiceUnavailable) })
    expect(() => sessionOf(slot, outage)).toThrow(expect.objectContaining({ status: 503 }))
    expect(sessionOf(await loadSessionSlot(read(cookie)), outage)).toMatchObject({ user: { name: "Ada Lovelace" } })
  })

  it("getSessionData's reader rejects with ServiceUnavailable, and signed out stays null", async () => {
    const cookie = await store.signedInCookie()
    store.down = true
    try {
      await expect(read(cookie)()).rejects.toBeInstanceOf(ServiceUnavailable)
      expect(sessionOf(await loadSessionSlot(read("")), outage)).toBeNull()
    } finally {
      store.down = false
    }
  })

  it("10 concurrent reads during the outage all keep the outage", async () => {
    const cookie = await store.signedInCookie()
    store.down = true
    try {
      const slots = await Promise.all(Array.from({ length: 10 }, () => loadSessionSlot(read(cookie))))
      for (const slot of slots) expect("unavailable" in slot).toBe(true)
    } finally {
      store.down = false
    }
  })

  it("other errors are not swallowed as outages", async () => {
    await expect(loadSessionSlot(async () => Promise.reject(new Error("bug")))).rejects.toThrow("bug")
  })
})
