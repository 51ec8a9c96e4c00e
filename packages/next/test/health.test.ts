/**
 * Issue 29, health checks on Next.js: `health()` on `NextAuth()`'s result runs on the app's
 * runtime, and with `health: { endpoint: true }` the route handlers answer `GET /api/auth/health`.
 */
import { describe, expect, it } from "vitest"
import { NextRequest } from "next/server"
import NextAuth from "@portcullis/next"
import { outageFixture } from "../../core/test/outage-fixture.js"

describe("health of NextAuth's result", () => {
  it("reports the adapter ok, and down when it fails", async () => {
    const store = outageFixture()
    const { health } = NextAuth(store.config({ basePath: "/api/auth" }))
    expect(await health()).toMatchObject({ status: "ok", checks: { config: { status: "ok" }, adapter: { status: "ok" } } })
    store.down = true
    // Its own bound: probed for this call alone, not the shared one-second report.
    expect(await health({ timeout: 500 })).toMatchObject({ status: "down", checks: { adapter: { status: "down" } } })
  })

  it("the route handlers serve GET /api/auth/health when the endpoint is on", async () => {
    const store = outageFixture()
    const { handlers } = NextAuth(store.config({ basePath: "/api/auth", health: { endpoint: true } }))
    const response = await handlers.GET(new NextRequest("http://localhost:3000/api/auth/health"))
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ status: "ok" })
  })
})
