import { isHttpError, type RequestEvent } from "@sveltejs/kit"
import { describe, expect, it, vi } from "vitest"
import Credentials from "@portcullis/core/providers/credentials"
import { SvelteKitAuth, type SvelteKitAuthConfig } from "@portcullis/sveltekit"

/**
 * T32 for SvelteKit. SvelteKit's adapter builds `event.url` from request headers
 * (adapter-node: `Host`, or `HOST_HEADER`/`PROTOCOL_HEADER` when set, so
 * `X-Forwarded-Proto: javascript` becomes a `javascript:` URL), and `event.request` keeps
 * every forwarded header. The hook hands `/auth/*` to core, which checks both; everything
 * else (`locals.auth()`, `locals.csrfToken()`, the form actions) checks `event.url` with
 * core's rule before building a URL: a 400, never a `null` origin or a 500.
 */

const config: SvelteKitAuthConfig = {
  secret: "sveltekit-unit-test-secret-0123456789abcdef",
  trustHost: true,
  // Core logs every refusal; these are the expected ones.
  logger: { error: () => {} },
  providers: [Credentials({ credentials: { username: {}, password: {} }, authorize: async () => null })],
}

/** The event adapter-node would build for `origin` (from the attacker's headers) and `path`. */
function eventFrom(origin: string, path: string, init: RequestInit = {}) {
  const url = new URL(`${origin}${path}`)
  const event = {
    url,
    request: new Request(url, init),
    locals: {} as App.Locals,
    cookies: { set: vi.fn() },
  }
  return event as unknown as RequestEvent
}

/** Origins adapter-node builds from a hostile `Host` or protocol header that still parse. */
const hostileOrigins = [
  ["X-Forwarded-Proto: javascript (PROTOCOL_HEADER)", "javascript://app.example"],
  ["X-Forwarded-Proto: ftp (PROTOCOL_HEADER)", "ftp://app.example"],
  ["Host: x:0", "http://x:0"],
]

async function expect400(promise: Promise<unknown>) {
  const error = await promise.then(() => undefined, (e: unknown) => e)
  expect(isHttpError(error), String(error)).toBe(true)
  expect((error as { status: number }).status).toBe(400)
  expect((error as { body: { message: string } }).body.message).toMatch(/^InvalidRequest: /)
}

async function expectCore400(response: Response) {
  expect(response.status).toBe(400)
  const text = await response.text()
  expect(JSON.parse(text)).toMatchObject({ error: "InvalidRequest" })
  expect(text).not.toContain("null/")
}

describe("SvelteKit: the auth endpoints are core, which checks host and forwarded headers", () => {
  it.each(hostileOrigins)("%s → core's 400", async (_, origin) => {
    const { handle } = SvelteKitAuth(config)
    await expectCore400(await handle({ event: eventFrom(origin, "/auth/providers"), resolve: vi.fn() }))
  })

  it.each([
    ["x-forwarded-host", "evil.example/x"],
    ["x-forwarded-host", "a@evil.example"],
    ["x-forwarded-host", "x:99999"],
    ["x-forwarded-proto", "javascript"],
  ])("a forged %s: %s → core's 400", async (name, value) => {
    const { handle } = SvelteKitAuth(config)
    await expectCore400(await handle({ event: eventFrom("http://app.example", "/auth/signin", { headers: { [name]: value } }), resolve: vi.fn() }))
  })
})

describe("SvelteKit: locals and form actions refuse a malformed origin with a 400", () => {
  it.each(hostileOrigins)("locals.auth() and locals.csrfToken() with %s", async (_, origin) => {
    const { handle } = SvelteKitAuth(config)
    const event = eventFrom(origin, "/")
    await handle({ event, resolve: async () => new Response("page") })
    await expect400(event.locals.auth())
    await expect400(event.locals.csrfToken())
  })

  it.each(hostileOrigins)("the signIn and signOut actions with %s", async (_, origin) => {
    const { signIn, signOut } = SvelteKitAuth(config)
    const post = () => ({ method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "providerId=credentials" })
    await expect400(signIn(eventFrom(origin, "/signin", post())))
    await expect400(signOut(eventFrom(origin, "/signout", post())))
  })

  it("a well-formed origin still works", async () => {
    const { handle } = SvelteKitAuth(config)
    const event = eventFrom("http://app.example:5173", "/")
    await handle({ event, resolve: async () => new Response("page") })
    expect(await event.locals.auth()).toBeNull()
    expect(typeof (await event.locals.csrfToken())).toBe("string")
  })
})
