// The Qwik entry loads Qwik City, which only resolves inside a Qwik app; its getAccessToken
// is readAccessToken over the event's URL, cookies and cookie sink, tested here as called.
import { describe, expect, it } from "vitest"
import { ReauthRequired } from "@portcullis/core/errors"
import { originOfUrl, readAccessToken } from "@portcullis/core/integration"
import { tokenFixture } from "../../core/test/tokens/integration-fixture.js"

describe("getAccessToken(ev, config, { provider }) — readAccessToken as the Qwik wrapper calls it", () => {
  const tokens = tokenFixture()
  const origin = originOfUrl(new URL("http://localhost:5173/api/repos"))

  it("50 concurrent calls for one signed-in browser: one refresh, the stored token for all", async () => {
    const config = tokens.config()
    const user = await tokens.expiredUser()
    tokens.op.requests.length = 0
    const results = await Promise.all(Array.from({ length: 50 }, () => readAccessToken(origin, user.cookie, config, "op", () => {})))
    expect(tokens.op.refreshRequests()).toHaveLength(1)
    expect(new Set(results.map((r) => r.accessToken))).toEqual(new Set([(await user.stored())?.access_token]))
  })

  it("signed out: ReauthRequired (signed_out)", async () => {
    const error = await readAccessToken(origin, null, tokens.config(), "op").catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ReauthRequired)
  })
})
