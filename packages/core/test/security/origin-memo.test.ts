import { describe, expect, it } from "vitest"
import { createAuth } from "@portcullis/core"
import { credentialsConfig } from "../helpers.js"

/**
 * A configuration remembers the origins it has worked out (`lib/http/origin-memo.ts`), so
 * the host checks and URL parses are not redone on every request. Remembering must not
 * change any answer, must not keep refusals, and must stay bounded whatever Host headers
 * clients send.
 */
describe("remembered request origins", () => {
  /** The sign-in form's callback URLs: what the origin decides (the page's CSRF token differs per request). */
  const urls = (page: string) => [...page.matchAll(/https?:\/\/[^"'\s<>]*\/auth\/callback\/credentials/g)].map((m) => m[0])
  const csrfFrom = async (runtime: ReturnType<typeof createAuth>, headers: Record<string, string>, url = "http://app.example/auth/signin") =>
    runtime.handle(new Request(url, { headers, redirect: "manual" }))

  it("answers a repeated origin as the first time, from one remembered entry", async () => {
    const runtime = createAuth({ ...credentialsConfig(), trustHost: true })
    const first = urls(await (await csrfFrom(runtime, {})).text())
    const second = urls(await (await csrfFrom(runtime, {})).text())
    expect(first).toContain("http://app.example/auth/callback/credentials")
    expect(second).toEqual(first)
    expect(runtime.config.origins.size).toBe(1)
  })

  it("keeps forwarded headers apart: each combination is its own answer", async () => {
    const runtime = createAuth({ ...credentialsConfig(), trustHost: true })
    const plain = urls(await (await csrfFrom(runtime, {})).text())
    const forwarded = urls(await (await csrfFrom(runtime, { "x-forwarded-host": "proxy.example", "x-forwarded-proto": "https" })).text())
    expect(forwarded).toContain("https://proxy.example/auth/callback/credentials")
    expect(plain).toContain("http://app.example/auth/callback/credentials")
    expect(plain.join()).not.toContain("proxy.example")
    expect(urls(await (await csrfFrom(runtime, {})).text())).toEqual(plain)
  })

  it("does not remember a refused origin: an untrusted host is refused with a 400 every time", async () => {
    const runtime = createAuth({ ...credentialsConfig(), trustHost: false, trustedOrigins: ["http://app.example"] })
    for (let i = 0; i < 3; i++) {
      const response = await csrfFrom(runtime, {}, "http://evil.example/auth/signin")
      expect(response.status).toBe(400)
    }
    expect(runtime.config.origins.size).toBe(0)
    expect((await csrfFrom(runtime, {})).status).toBe(200)
  })

  it("does not remember a malformed forwarded host (400 each time)", async () => {
    const runtime = createAuth({ ...credentialsConfig(), trustHost: true })
    for (let i = 0; i < 3; i++) {
      expect((await csrfFrom(runtime, { "x-forwarded-host": "evil.example/path@x" })).status).toBe(400)
    }
    expect(runtime.config.origins.size).toBe(0)
  })

  it("stays bounded under a flood of distinct Host headers, and each still gets its own answer", async () => {
    const runtime = createAuth({ ...credentialsConfig(), trustHost: true })
    for (let i = 0; i < 300; i++) {
      const body = await (await csrfFrom(runtime, {}, `http://host-${i}.example/auth/signin`)).text()
      expect(body).toContain(`http://host-${i}.example/auth/callback/credentials`)
    }
    expect(runtime.config.origins.size).toBeLessThanOrEqual(runtime.config.origins.limit)
  })
})
