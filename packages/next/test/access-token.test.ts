import { beforeEach, describe, expect, it, vi } from "vitest"
import NextAuth, { ReauthRequired } from "@portcullis/next"
import { nextRequestStore } from "./helpers.js"
import { tokenFixture } from "../../core/test/tokens/integration-fixture.js"

vi.mock("next/headers", () => ({
  headers: async () => nextRequestStore.headers,
  cookies: async () => nextRequestStore.jar(),
}))

beforeEach(() => nextRequestStore.reset())

describe("getAccessToken of NextAuth's result", () => {
  const tokens = tokenFixture()

  it("reads the signed-in user from cookies(): 50 concurrent calls, one refresh at the provider, the stored token for all", async () => {
    const { getAccessToken } = NextAuth(tokens.config({ basePath: "/api/auth" }))
    const user = await tokens.expiredUser()
    nextRequestStore.reset({ cookie: user.cookie })
    tokens.op.requests.length = 0
    const results = await Promise.all(Array.from({ length: 50 }, () => getAccessToken({ provider: "op" })))
    expect(tokens.op.refreshRequests()).toHaveLength(1)
    const stored = await user.stored()
    expect(new Set(results.map((r) => r.accessToken))).toEqual(new Set([stored?.access_token]))
  })

  it("takes a userId instead (background jobs, no request)", async () => {
    const { getAccessToken } = NextAuth(tokens.config({ basePath: "/api/auth" }))
    const user = await tokens.expiredUser()
    const token = await getAccessToken({ provider: "op", userId: user.userId })
    expect(token.accessToken).toBe((await user.stored())?.access_token)
  })

  it("signed out: ReauthRequired (signed_out)", async () => {
    const { getAccessToken } = NextAuth(tokens.config({ basePath: "/api/auth" }))
    const error = await getAccessToken({ provider: "op" }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ReauthRequired)
    expect(error).toMatchObject({ reason: "signed_out" })
  })
})
