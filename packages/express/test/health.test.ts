/**
 * Issue 29, health checks through a real Express server: `health: { endpoint: true }` serves
 * `GET /auth/health` under the mounted handler, and `health(config)` answers an app's own
 * readiness route — both the same report, 503 while the store is down.
 */
import { afterEach, describe, expect, it } from "vitest"
import { health, type HealthReport } from "@portcullis/express"
import { outageFixture } from "../../core/test/outage-fixture.js"
import { expressServer } from "./support.js"

let server: Awaited<ReturnType<typeof expressServer>> | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

describe("health on Express", () => {
  it("GET /auth/health answers 200 ok, then 503 down with the store stopped (after the one-second report)", async () => {
    const store = outageFixture()
    server = await expressServer(store.config({ health: { endpoint: true } }))
    const up = await fetch(`${server.origin}/auth/health`)
    expect(up.status).toBe(200)
    expect(up.headers.get("cache-control")).toBe("no-store")
    expect(((await up.json()) as HealthReport).checks.adapter).toMatchObject({ status: "ok" })

    store.down = true
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    const down = await fetch(`${server.origin}/auth/health`)
    expect(down.status).toBe(503)
    const body = await down.text()
    expect(JSON.parse(body)).toMatchObject({ status: "down", checks: { adapter: { status: "down" } } })
    expect(body).not.toContain("127.0.0.1")
  })

  it("health(config) serves an app's own readiness route; the endpoint stays off", async () => {
    const store = outageFixture()
    const config = store.config()
    server = await expressServer(config, (app) => {
      app.get("/ready", async (_req, res) => {
        const report = await health(config)
        res.status(report.status === "down" ? 503 : 200).json(report)
      })
    })
    const ready = await fetch(`${server.origin}/ready`)
    expect(ready.status).toBe(200)
    expect(((await ready.json()) as HealthReport).status).toBe("ok")
    const endpoint = await fetch(`${server.origin}/auth/health`)
    expect(endpoint.status).toBe(400)
    await endpoint.body?.cancel()
  })
})
