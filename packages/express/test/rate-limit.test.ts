// ExpressAuth hands core the client address Express decided (`req.ip`, by `trust proxy`),
// so per-address limits hold on a real Express server and a forged X-Forwarded-For changes
// nothing unless Express was told to trust the proxy.
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

describe("ExpressAuth and the client address", () => {
  it("counts the socket's address when Express trusts no proxy: rotating X-Forwarded-For does not reset it", async () => {
    const server = await expressServer(config())
    try {
      const errors = []
      for (let i = 0; i < 4; i++) errors.push(await attempt(server.origin, `user${i}`, `203.0.113.${i}`))
      expect(errors).toEqual(["CredentialsSignin", "CredentialsSignin", "RateLimited", "RateLimited"])
    } finally {
      await server.close()
    }
  })

  it("counts the forwarded client when Express trusts the proxy (trust proxy): each client has its own counter", async () => {
    const server = await expressServer(config(), (app) => app.set("trust proxy", "loopback"))
    try {
      const errors = []
      for (let i = 0; i < 4; i++) errors.push(await attempt(server.origin, `user${i}`, `203.0.113.${i}`))
      expect(errors).toEqual(Array(4).fill("CredentialsSignin"))
      // One forwarded client over its limit.
      for (let i = 0; i < 2; i++) await attempt(server.origin, `again${i}`, "198.51.100.9")
      expect(await attempt(server.origin, "again-3", "198.51.100.9")).toBe("RateLimited")
    } finally {
      await server.close()
    }
  })
})
