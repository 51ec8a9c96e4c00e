import { afterAll, beforeAll, describe, expect, it } from "vitest"
import express from "express"
import { getSession, ServiceUnavailable } from "@portcullis/express"
import { expressServer } from "./support.js"
import { outageFixture } from "../../core/test/outage-fixture.js"

/** Issue #13: with the session store down, `getSession` reports unavailable, never `null`. */
describe("getSession while the session store is down", () => {
  const store = outageFixture()
  const config = store.config()
  let server: Awaited<ReturnType<typeof expressServer>>
  let cookie: string
  beforeAll(async () => {
    cookie = await store.signedInCookie()
    server = await expressServer(config, (app: express.Express) => {
      app.get("/me", async (req, res) => {
        try {
          const session = await getSession(req, config)
          res.json({ signedIn: !!session })
        } catch (error) {
          if (error instanceof ServiceUnavailable) return void res.status(503).set("Retry-After", String(error.retryAfter)).json({ unavailable: true })
          res.status(500).end()
        }
      })
    })
  })
  afterAll(() => server?.close())

  const me = () => fetch(`${server.origin}/me`, { headers: { cookie } })

  it("throws ServiceUnavailable (not null) in a real route, and reads the session again after recovery", async () => {
    store.down = true
    try {
      const response = await me()
      expect(response.status).toBe(503)
      expect(await response.json()).toEqual({ unavailable: true })
    } finally {
      store.down = false
    }
    expect(await (await me()).json()).toEqual({ signedIn: true })
  })

  it("20 concurrent reads during the outage all report unavailable", async () => {
    store.down = true
    try {
      const responses = await Promise.all(Array.from({ length: 20 }, me))
      expect(responses.map((r) => r.status)).toEqual(Array(20).fill(503))
    } finally {
      store.down = false
    }
  })

  it("signed out is still null, outage or not", async () => {
    const req = { headers: {}, protocol: "http", get: (name: string) => (name === "host" ? "localhost:3000" : undefined) }
    store.down = true
    try {
      expect(await getSession(req as never, config)).toBeNull()
    } finally {
      store.down = false
    }
  })
})
