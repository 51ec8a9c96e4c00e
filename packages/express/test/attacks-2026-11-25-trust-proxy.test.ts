// Attack on the Express client address (docs/rate-limiting.md, "Express"): `ExpressAuth`
// counts `req.ip`, which follows Express's `trust proxy`. With `trust proxy: true` Express
// takes the LEFTMOST X-Forwarded-For entry — the one the client writes, even behind a real
// proxy that appends — so a new forged entry per attempt is a new counter.
//
// NOT FIXED (no clear fix in the integration: with `true`, the rightmost entry may be a CDN
// shared by everyone): documented as "never `true`" in docs/rate-limiting.md, and
// ExpressAuth warns once (`express-trust-proxy-all`) when it sees `trust proxy: true`.
import { describe, expect, it } from "vitest"
import Credentials from "@portcullis/core/providers/credentials"
import type { AuthConfig } from "@portcullis/core"
import { expressServer } from "./support.js"

const config = (): AuthConfig => ({
  secret: "a-test-secret-with-at-least-32-characters",
  trustHost: true,
  logger: { error: () => {}, warn: () => {}, debug: () => {} },
  rateLimit: { perAddress: { credentials: { max: 2, window: 900 } }, perIdentifier: { credentials: false } },
  providers: [Credentials({ credentials: { username: {}, password: { type: "password" } }, authorize: async () => null })],
})

async function attempt(origin: string, username: string, xff: string) {
  const csrf = await fetch(`${origin}/auth/csrf`)
  const cookie = csrf.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ")
  const { csrfToken } = (await csrf.json()) as { csrfToken: string }
  const response = await fetch(`${origin}/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": xff },
    body: new URLSearchParams({ username, password: "x", csrfToken }),
  })
  return new URL(response.headers.get("location")!).searchParams.get("error")
}

describe("Express with trust proxy: true", () => {
  it.fails("a client forging a new leftmost X-Forwarded-For entry per attempt behind an appending proxy is still one client", async () => {
    const server = await expressServer(config(), (app) => app.set("trust proxy", true))
    try {
      const errors = []
      // The proxy appends the real client (198.51.100.9) after whatever the client sent.
      for (let i = 0; i < 4; i++) errors.push(await attempt(server.origin, `user${i}`, `203.0.113.${i}, 198.51.100.9`))
      expect(errors.slice(2)).toEqual(["RateLimited", "RateLimited"])
    } finally {
      await server.close()
    }
  })

  it("says so once: ExpressAuth warns express-trust-proxy-all on the first request, and only then", async () => {
    const warnings: string[] = []
    const server = await expressServer({ ...config(), logger: { error: () => {}, warn: (code) => warnings.push(code), debug: () => {} } }, (app) => app.set("trust proxy", true))
    try {
      for (let i = 0; i < 3; i++) await fetch(`${server.origin}/auth/session`)
      expect(warnings.filter((w) => w === "express-trust-proxy-all")).toHaveLength(1)
    } finally {
      await server.close()
    }
    const quiet: string[] = []
    const counted = await expressServer({ ...config(), logger: { error: () => {}, warn: (code) => quiet.push(code), debug: () => {} } }, (app) => app.set("trust proxy", 1))
    try {
      await fetch(`${counted.origin}/auth/session`)
      expect(quiet).not.toContain("express-trust-proxy-all")
    } finally {
      await counted.close()
    }
  })

  it("what held: with trust proxy set to the proxy's hop count, the same forgery changes nothing", async () => {
    const server = await expressServer(config(), (app) => app.set("trust proxy", 1))
    try {
      const errors = []
      for (let i = 0; i < 4; i++) errors.push(await attempt(server.origin, `user${i}`, `203.0.113.${i}, 198.51.100.9`))
      expect(errors).toEqual(["CredentialsSignin", "CredentialsSignin", "RateLimited", "RateLimited"])
    } finally {
      await server.close()
    }
  })
})
