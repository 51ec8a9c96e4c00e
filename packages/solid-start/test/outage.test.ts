import { describe, expect, it } from "vitest"
import { getSession, ServiceUnavailable } from "@portcullis/solid-start"
import { outageFixture } from "../../core/test/outage-fixture.js"

/** Issue #13: with the session store down, `getSession` reports unavailable, never `null`. */
describe("getSession while the session store is down", () => {
  const store = outageFixture()
  const options = store.config({ basePath: undefined })
  const origin = "http://localhost:3000"

  it("rejects with ServiceUnavailable, and reads the session again after recovery", async () => {
    const request = new Request(`${origin}/`, { headers: { cookie: await store.signedInCookie() } })
    store.down = true
    try {
      await expect(getSession(request, options)).rejects.toBeInstanceOf(ServiceUnavailable)
    } finally {
      store.down = false
    }
    expect(await getSession(request, options)).toMatchObject({ user: { name: "Ada Lovelace" } })
  })

  it("10 concurrent reads during the outage all reject with ServiceUnavailable", async () => {
    const request = new Request(`${origin}/`, { headers: { cookie: await store.signedInCookie() } })
    store.down = true
    try {
      const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => getSession(request, options)))
      for (const o of outcomes) expect(o.status === "rejected" && o.reason instanceof ServiceUnavailable).toBe(true)
    } finally {
      store.down = false
    }
  })
})
