/**
 * Issue 31: the configured extensions' server functions through SvelteKit
 * (`event.locals.extensions()`, set by the `handle` hook), bound to the request — and the
 * extension's routes answered by the hook under the base path. The extension is the shared
 * fixture; requests go through `handle` as SvelteKit would call it.
 */
import type { RequestEvent } from "@sveltejs/kit"
import { describe, expect, it, vi } from "vitest"
import { SvelteKitAuth, NotSignedIn } from "@portcullis/sveltekit"
import { Browser, credentialsConfig } from "../../core/test/helpers.js"
import { probeExtension } from "../../core/test/extensions/fixture.js"

/** The hook, a browser whose requests go through it, and what the page's load would get. */
function setup() {
  const probe = probeExtension()
  const { handle } = SvelteKitAuth(credentialsConfig({ extensions: [probe.extension] }))
  /** Runs `request` through `handle`; `page` plays the route that would resolve it. */
  const run = (request: Request, page: (event: RequestEvent) => Promise<unknown> = async () => null) => {
    const event = {
      url: new URL(request.url),
      request,
      locals: {} as App.Locals,
      cookies: { set: vi.fn() },
      getClientAddress: () => "203.0.113.9",
    } as unknown as RequestEvent
    return handle({ event, resolve: async (e) => Response.json(await page(e)) })
  }
  const browser = new Browser((request) => run(request))
  /** The browser's request for `path`, its page calling `page` with the request's event. */
  const visit = (path: string, page: (event: RequestEvent) => Promise<unknown>, init: RequestInit = {}) => {
    const headers = new Headers(init.headers)
    if (browser.jar.size) headers.set("cookie", browser.cookieHeader())
    return run(new Request(new URL(path, browser.origin), { ...init, headers }), page)
  }
  return { probe, browser, visit }
}

describe("extensions' server functions in SvelteKit", () => {
  it("see the signed-in user of the request in a load, and no one before sign-in", async () => {
    const { browser, visit } = setup()
    const whoami = async (event: RequestEvent) => (await event.locals.extensions()).probe.whoami()
    expect(await (await visit("/", whoami)).json()).toBeNull()
    await browser.signIn()
    expect(await (await visit("/", whoami)).json()).toBe("user-ada")
  })

  it("throw NotSignedIn from requireSession without a session", async () => {
    const { visit } = setup()
    let thrown: unknown
    await visit("/", async (event) => (await event.locals.extensions()).probe.mustBeSignedIn().catch((error: unknown) => ((thrown = error), null)))
    expect(thrown).toBeInstanceOf(NotSignedIn)
  })

  it("refuse a cross-site form action before the function runs, and serve a same-site one", async () => {
    const { browser, visit, probe } = setup()
    await browser.signIn()
    probe.ran.length = 0
    const action = (event: RequestEvent) => (async () => (await event.locals.extensions()).probe.whoami())().catch((error) => ({ refused: error.type }))
    expect(await (await visit("/notes", action, { method: "POST", headers: { origin: "https://evil.example" } })).json()).toEqual({ refused: "MissingCSRF" })
    expect(probe.ran).toEqual([])
    expect(await (await visit("/notes", action, { method: "POST", headers: { origin: browser.origin } })).json()).toBe("user-ada")
  })

  it("serve the extension's routes through the handle hook under the base path", async () => {
    const { browser } = setup()
    expect(await (await browser.request("/auth/probe/hello/kit")).json()).toEqual({ hello: "kit" })
    expect((await browser.request("/auth/probe/me")).status).toBe(401)
    await browser.signIn()
    expect(await (await browser.request("/auth/probe/me")).json()).toEqual({ userId: "user-ada" })
  })
})
