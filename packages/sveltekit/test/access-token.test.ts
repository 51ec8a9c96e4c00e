import type { RequestEvent } from "@sveltejs/kit"
import { describe, expect, it, vi } from "vitest"
import { ReauthRequired, SvelteKitAuth } from "@portcullis/sveltekit"
import { tokenFixture } from "../../core/test/tokens/integration-fixture.js"

const origin = "http://localhost:5173"

/** Runs the handle hook for a page request and returns the event with its locals. */
async function pageEvent(handle: ReturnType<typeof SvelteKitAuth>["handle"], cookie?: string) {
  const url = new URL("/dashboard", origin)
  const event = {
    url,
    request: new Request(url, { headers: cookie ? { cookie } : {} }),
    locals: {} as App.Locals,
    cookies: { set: vi.fn() },
  } as unknown as RequestEvent
  await handle({ event, resolve: async () => new Response("page") })
  return event
}

describe("event.locals.getAccessToken(provider)", () => {
  const tokens = tokenFixture()

  it("50 concurrent calls from one signed-in browser's requests: one refresh, the stored token for all", async () => {
    const { handle } = SvelteKitAuth(tokens.config())
    const user = await tokens.expiredUser()
    tokens.op.requests.length = 0
    const events = await Promise.all(Array.from({ length: 50 }, () => pageEvent(handle, user.cookie)))
    const results = await Promise.all(events.map((e) => e.locals.getAccessToken("op")))
    expect(tokens.op.refreshRequests()).toHaveLength(1)
    expect(new Set(results.map((r) => r.accessToken))).toEqual(new Set([(await user.stored())?.access_token]))
  })

  it("signed out: ReauthRequired (signed_out)", async () => {
    const { handle } = SvelteKitAuth(tokens.config())
    const event = await pageEvent(handle)
    const error = await event.locals.getAccessToken("op").catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ReauthRequired)
  })
})
