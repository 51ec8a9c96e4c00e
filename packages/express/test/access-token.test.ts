import { describe, expect, it } from "vitest"
import { getAccessToken, ReauthRequired } from "@portcullis/express"
import { tokenFixture } from "../../core/test/tokens/integration-fixture.js"
import { expressServer } from "./support.js"

describe("getAccessToken(req, config, { provider }) in an Express route", () => {
  const tokens = tokenFixture()

  async function server() {
    const config = tokens.config()
    return expressServer(config, (app) => {
      app.get("/api/token", async (req, res) => {
        try {
          const { accessToken, refreshed } = await getAccessToken(req, config, { provider: "op", res })
          res.json({ accessToken, refreshed })
        } catch (error) {
          res.status(error instanceof ReauthRequired ? 401 : 502).json({ error: (error as { type?: string }).type, reason: (error as ReauthRequired).reason })
        }
      })
    })
  }

  it("50 concurrent requests of one signed-in browser: one refresh at the provider, the stored token for all", async () => {
    const app = await server()
    try {
      const user = await tokens.expiredUser()
      tokens.op.requests.length = 0
      const answers = await Promise.all(Array.from({ length: 50 }, () => fetch(`${app.origin}/api/token`, { headers: { cookie: user.cookie } }).then((r) => r.json() as Promise<{ accessToken: string }>)))
      expect(tokens.op.refreshRequests()).toHaveLength(1)
      const stored = await user.stored()
      expect(new Set(answers.map((a) => a.accessToken))).toEqual(new Set([stored?.access_token]))
      expect(stored?.refresh_token).not.toBe(user.refreshToken)
    } finally {
      await app.close()
    }
  })

  it("a request without a session: ReauthRequired (signed_out)", async () => {
    const app = await server()
    try {
      const response = await fetch(`${app.origin}/api/token`)
      expect(response.status).toBe(401)
      expect(await response.json()).toEqual({ error: "ReauthRequired", reason: "signed_out" })
    } finally {
      await app.close()
    }
  })
})
