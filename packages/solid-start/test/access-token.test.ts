import { describe, expect, it } from "vitest"
import { getAccessToken, ReauthRequired } from "@portcullis/solid-start"
import { tokenFixture } from "../../core/test/tokens/integration-fixture.js"

describe("getAccessToken(request, options, { provider })", () => {
  const tokens = tokenFixture()
  const request = (cookie?: string) => new Request("http://localhost:3000/api/repos", { headers: cookie ? { cookie } : {} })

  it("50 concurrent calls for one signed-in browser: one refresh, the stored token for all", async () => {
    const options = tokens.config()
    const user = await tokens.expiredUser()
    tokens.op.requests.length = 0
    const results = await Promise.all(Array.from({ length: 50 }, () => getAccessToken(request(user.cookie), options, { provider: "op" })))
    expect(tokens.op.refreshRequests()).toHaveLength(1)
    expect(new Set(results.map((r) => r.accessToken))).toEqual(new Set([(await user.stored())?.access_token]))
  })

  it("signed out: ReauthRequired (signed_out)", async () => {
    const error = await getAccessToken(request(), tokens.config(), { provider: "op" }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ReauthRequired)
  })
})
