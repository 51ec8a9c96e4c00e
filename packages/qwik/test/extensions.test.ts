/**
 * Issue 31: the configured extensions' server functions through Qwik City
 * (`extensions(ev, config)`, for `routeLoader$` and `routeAction$`), bound to the request —
 * and the extension's routes answered by `onRequest` under the base path. The extension is
 * the shared fixture.
 *
 * Qwik City itself only loads inside a Qwik app (see validate.test.ts), so its wrappers are
 * replaced by identities, as hosts.test.ts does: the entry point's own code runs as published.
 */
import { describe, expect, it, vi } from "vitest"
import { Browser, credentialsConfig } from "../../core/test/helpers.js"
import { probeExtension } from "../../core/test/extensions/fixture.js"

vi.mock("@builder.io/qwik", () => ({
  implicit$FirstArg: (fn: (qrl: unknown) => unknown) => fn,
  inlinedQrl: (fn: unknown) => fn,
}))
vi.mock("@builder.io/qwik-city", () => ({
  globalActionQrl: (action: unknown, validator: unknown) => ({ action, validator }),
  routeLoaderQrl: (loader: unknown) => loader,
  validatorQrl: (validator: unknown) => validator,
}))

const { extensions, NotSignedIn, QwikAuthQrl } = await import("@portcullis/qwik")

/** A request event with what the integration touches; `send` returns what Qwik would throw. */
function eventOf(request: Request) {
  const headers = new Headers()
  return {
    url: new URL(request.url),
    request,
    method: request.method,
    clientConn: { ip: "203.0.113.9" },
    sharedMap: new Map<string, unknown>(),
    headers,
    cookie: { set: vi.fn() },
    status: () => {},
    send: (status: number, body: Uint8Array) => new Response(body.length ? body : null, { status, headers }),
    error: (status: number, message: string) => Object.assign(new Error(message), { status }),
  }
}

function setup() {
  const probe = probeExtension()
  const config = credentialsConfig({ extensions: [probe.extension] })
  const { onRequest } = QwikAuthQrl((() => config) as never) as unknown as { onRequest(ev: unknown): Promise<void> }
  // `onRequest` answers `/auth/*` by throwing what `ev.send` returned.
  const browser = new Browser(async (request) => {
    try {
      await onRequest(eventOf(request))
    } catch (thrown) {
      if (thrown instanceof Response) return thrown
      throw thrown
    }
    return new Response("page", { status: 200 })
  })
  /** The event of the browser's request to one of the app's own routes. */
  const appEvent = (init: RequestInit = {}) => eventOf(new Request(new URL("/notes", browser.origin), { ...init, headers: { cookie: browser.cookieHeader(), ...init.headers } })) as never
  return { probe, config, browser, appEvent }
}

describe("extensions' server functions in Qwik City", () => {
  it("see the signed-in user in a routeLoader$, and no one before sign-in", async () => {
    const { config, browser, appEvent } = setup()
    expect(await (await extensions(appEvent(), config)).probe.whoami()).toBeNull()
    await browser.signIn()
    expect(await (await extensions(appEvent(), config)).probe.whoami()).toBe("user-ada")
  })

  it("throw NotSignedIn from requireSession without a session", async () => {
    const { config, appEvent } = setup()
    await expect((await extensions(appEvent(), config)).probe.mustBeSignedIn()).rejects.toBeInstanceOf(NotSignedIn)
  })

  it("refuse a cross-site routeAction$ before the function runs, and serve a same-site one", async () => {
    const { config, browser, appEvent, probe } = setup()
    await browser.signIn()
    probe.ran.length = 0
    const crossSite = appEvent({ method: "POST", headers: { origin: "https://evil.example" } })
    await expect((async () => (await extensions(crossSite, config)).probe.whoami())()).rejects.toMatchObject({ type: "MissingCSRF" })
    expect(probe.ran).toEqual([])
    const sameSite = appEvent({ method: "POST", headers: { origin: browser.origin } })
    expect(await (await extensions(sameSite, config)).probe.whoami()).toBe("user-ada")
  })

  it("serve the extension's routes through onRequest under the base path", async () => {
    const { browser } = setup()
    expect(await (await browser.request("/auth/probe/hello/qwik")).json()).toEqual({ hello: "qwik" })
    expect((await browser.request("/auth/probe/me")).status).toBe(401)
    await browser.signIn()
    expect(await (await browser.request("/auth/probe/me")).json()).toEqual({ userId: "user-ada" })
  })
})
