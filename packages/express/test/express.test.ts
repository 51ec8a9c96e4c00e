import { afterAll, beforeAll, describe, expect, it } from "vitest"
import express from "express"
import { ExpressAuth, getSession, type ExpressAuthConfig } from "@portcullis/express"
import { ada, Browser, credentialsConfig } from "../../core/test/helpers.js"
import { expressServer } from "./support.js"

/** The Express integration beyond the shared flows (spec §1.7 row 2, §4.3). */
describe("ExpressAuth behind a proxy", () => {
  const config = credentialsConfig({ trustHost: true })
  let trusted: Awaited<ReturnType<typeof expressServer>>
  let untrusted: Awaited<ReturnType<typeof expressServer>>
  beforeAll(async () => {
    trusted = await expressServer(config, (app) => app.set("trust proxy", "loopback"))
    untrusted = await expressServer(config)
  })
  afterAll(async () => {
    await trusted.close()
    await untrusted.close()
  })

  const forwarded = { "x-forwarded-proto": "https", "x-forwarded-host": "app.example" }

  it("detects https and the public host when the app trusts its proxy", async () => {
    const browser = new Browser(trusted.transport, trusted.origin)
    const response = await browser.request("/auth/providers", { headers: forwarded })
    expect((await response.json()).credentials.callbackUrl).toBe("https://app.example/auth/callback/credentials")
    await browser.request("/auth/csrf", { headers: forwarded })
    expect(browser.jar.has("__Host-authjs.csrf-token")).toBe(true)
  })

  it("ignores forwarded headers when the app does not trust a proxy", async () => {
    const browser = new Browser(untrusted.transport, untrusted.origin)
    const response = await browser.request("/auth/providers", { headers: forwarded })
    expect((await response.json()).credentials.callbackUrl).toBe(`${untrusted.origin}/auth/callback/credentials`)
  })
})

describe("mounting", () => {
  it("works under a wildcard mount (Express 5's /auth/{*splat}) and after body parsers", async () => {
    const { ExpressAuth } = await import("@portcullis/express")
    const app = express()
    app.use(express.urlencoded({ extended: false }))
    app.use(express.json())
    app.use("/auth/{*splat}", ExpressAuth(credentialsConfig()))
    const server = app.listen(0, "127.0.0.1")
    await new Promise((resolve) => server.once("listening", resolve))
    const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    try {
      const browser = new Browser((request) => fetch(request, { redirect: "manual" }), origin)
      const response = await browser.signIn()
      expect(response.status).toBe(302)
      expect((await browser.session()).user.name).toBe("Ada Lovelace")
    } finally {
      server.close()
    }
  })
})

describe("getSession(req, config)", () => {
  it("returns the session for the request's cookies, or null", async () => {
    const config = credentialsConfig()
    const server = await expressServer(config, (app) => {
      app.get("/me", async (req, res) => {
        res.json({ session: await getSession(req as any, config) })
      })
    })
    try {
      const browser = new Browser(server.transport, server.origin)
      expect(await (await browser.request("/me")).json()).toEqual({ session: null })
      await browser.signIn()
      const { session } = await (await browser.request("/me")).json()
      expect(session.user).toMatchObject({ name: "Ada Lovelace", email: "ada@example.com" })
    } finally {
      await server.close()
    }
  })
})

describe("getSession resolves the configuration once", () => {
  /** ada's credentials config with the provider as a factory, counting core's resolutions. */
  function counted() {
    const calls = { factory: 0, warn: 0 }
    const base = credentialsConfig()
    const provider = base.providers[0]!
    const config: ExpressAuthConfig = {
      ...base,
      // `debug` makes core warn once per resolution ("debug-enabled"), a second witness.
      debug: true,
      logger: { warn: () => void calls.warn++, debug: () => {}, error: () => {} },
      providers: [
        () => {
          calls.factory++
          return provider as ReturnType<Extract<(typeof base.providers)[number], () => unknown>>
        },
      ],
    }
    return { config, calls }
  }

  it("100 reads of a signed-in session: one provider normalisation, one resolve-time warning", async () => {
    const { config, calls } = counted()
    const server = await expressServer(config, (app) => {
      app.get("/me", async (req, res) => {
        res.json({ session: await getSession(req as any, config) })
      })
    })
    try {
      const browser = new Browser(server.transport, server.origin)
      await browser.signIn()
      for (let i = 0; i < 100; i++) {
        const { session } = await (await browser.request("/me")).json()
        expect(session.user.name).toBe("Ada Lovelace")
      }
      // Mounted at core's default base path, the middleware shares getSession's runtime.
      expect(calls.factory).toBe(1)
      expect(calls.warn).toBe(1)
    } finally {
      await server.close()
    }
  })

  it("a mount elsewhere has its own runtime, still built once however many requests", async () => {
    const { config, calls } = counted()
    const app = express()
    app.use("/api/auth", ExpressAuth(config))
    app.get("/me", async (req, res) => void res.json({ session: await getSession(req as any, config) }))
    const server = app.listen(0, "127.0.0.1")
    await new Promise((resolve) => server.once("listening", resolve))
    const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    try {
      const browser = new Browser((request) => fetch(request, { redirect: "manual" }), origin)
      const csrf = await (await browser.request("/api/auth/csrf")).json()
      await browser.request("/api/auth/callback/credentials", { form: { ...ada, csrfToken: csrf.csrfToken } })
      for (let i = 0; i < 100; i++) expect((await (await browser.request("/me")).json()).session.user.name).toBe("Ada Lovelace")
      // One runtime for the /api/auth mount, one for the config getSession is handed.
      expect(calls.factory).toBe(2)
    } finally {
      server.close()
    }
  })
})
