import { describe, expect, it } from "vitest"
import { SECRET_WEB, basic, testbed } from "./support.js"

describe("per-route rate limits", () => {
  it("limit the token endpoint per client address (429 with Retry-After), and rateLimit: false turns them off", async () => {
    const limited = testbed({ config: { rateLimit: {} }, provider: { rateLimit: { token: { max: 3, window: 60 } } } })
    const statuses: number[] = []
    for (let i = 0; i < 5; i++) statuses.push((await limited.call("/auth/oidc/token", { form: { grant_type: "client_credentials" }, headers: { ...basic("service", SECRET_WEB), "x-forwarded-for": "203.0.113.9" } })).status)
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200])
    expect(statuses.slice(3)).toEqual([429, 429])
    const off = testbed({ config: { rateLimit: {} }, provider: { rateLimit: false } })
    for (let i = 0; i < 5; i++) expect((await off.call("/auth/oidc/token", { form: { grant_type: "client_credentials" }, headers: { ...basic("service", SECRET_WEB), "x-forwarded-for": "203.0.113.9" } })).status).toBe(200)
  })
})
