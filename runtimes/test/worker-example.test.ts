/**
 * The Worker example (`runtimes/examples/worker.ts`, the one `docs/runtimes.md` shows):
 * database sessions in Workers KV, in workerd. Bundled the way `wrangler deploy` bundles
 * a Worker, run by miniflare with a real (local) KV namespace bound as `AUTH_KV`, driven
 * over HTTP like a browser, signing in through a real `oidc-provider` on loopback.
 */
import { fileURLToPath } from "node:url"
import { Miniflare } from "miniflare"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startDemoOidcProvider, type DemoOidcProvider } from "@portcullis/example-kit/oidc-server"
import { bundleForEdge } from "../bundle.ts"
import { Browser, redirectTarget, throughProvider } from "../scenarios.ts"
import { describeWhere, locate } from "./support.ts"

const workerOrigin = "http://localhost:8787"
const example = fileURLToPath(new URL("../examples/worker.ts", import.meta.url))

let op: DemoOidcProvider
let mf: Miniflare

/** Sends a browser's request into the Worker over miniflare's HTTP entry. */
async function toWorker(request: Request): Promise<Response> {
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.text()
  const response = await mf.dispatchFetch(request.url, { method: request.method, headers: [...request.headers], body, redirect: "manual" })
  return response as unknown as Response
}

/** The keys in the Worker's KV namespace under `auth:<kind>:`. */
async function kvKeys(kind: string): Promise<string[]> {
  // miniflare types its KV with @cloudflare/workers-types, which the repository does not install.
  const kv = (await mf.getKVNamespace("AUTH_KV")) as unknown as { list(options: { prefix: string }): Promise<{ keys: { name: string }[] }> }
  const { keys } = await kv.list({ prefix: `auth:${kind}:` })
  return keys.map((key) => key.name)
}

async function signIn(browser: Browser): Promise<Response> {
  const csrfToken = await browser.csrfToken()
  const start = await browser.request("/auth/signin/oidc", { form: { csrfToken, callbackUrl: "/" } })
  const callback = await throughProvider(redirectTarget(start, workerOrigin), workerOrigin)
  return browser.request(callback.pathname + callback.search)
}

async function page(browser: Browser): Promise<string> {
  const response = await browser.request("/")
  expect(response.status).toBe(200)
  return response.text()
}

describeWhere(locate({ pkg: "workerd", file: "bin/workerd" }), "The Worker example keeps database sessions in Workers KV, in workerd", () => {
  beforeAll(async () => {
    const client = { clientId: "worker-example", clientSecret: "worker-example-secret" }
    op = await startDemoOidcProvider({ port: 0, ...client, redirectUris: [`${workerOrigin}/auth/callback/oidc`] })
    const bundle = await bundleForEdge({ file: example }, "workerd")
    expect(bundle.nodeImports).toEqual([])
    mf = new Miniflare({
      modules: true,
      script: bundle.code,
      compatibilityDate: "2026-07-30",
      kvNamespaces: ["AUTH_KV"],
      bindings: {
        AUTH_SECRET: "worker-example-secret-with-at-least-32-characters",
        OIDC_ISSUER: op.issuer,
        OIDC_CLIENT_ID: client.clientId,
        OIDC_CLIENT_SECRET: client.clientSecret,
        OIDC_ALLOW_INSECURE_LOOPBACK: "1",
      },
    })
    await mf.ready
  }, 60_000)
  afterAll(async () => {
    await mf?.dispose()
    await op?.close()
  })

  const browser = new Browser(toWorker, workerOrigin)

  describe("signing in", () => {
    it("stores the user, the linked account and a session in KV, and gives the browser only the session's token", async () => {
      const done = await signIn(browser)
      expect(redirectTarget(done, workerOrigin).href).toBe(`${workerOrigin}/`)
      const token = browser.jar.get("authjs.session-token")
      expect(token, "a session cookie").toBeTruthy()
      expect(token?.split(".")).toHaveLength(1) // an opaque token, not a JWE
      expect(await kvKeys("session")).toHaveLength(1)
      expect(await kvKeys("user")).toHaveLength(1)
      expect(await kvKeys("account")).toHaveLength(1)
    })
  })

  describe("reading the session", () => {
    it("the Worker's page reads it server-side from KV", async () => {
      expect(await page(browser)).toContain("Signed in as Demo User")
    })

    it("GET /auth/session returns the user from KV", async () => {
      expect((await browser.session())?.user?.email).toBe("demo@portcullis.dev")
    })

    it("a forged session token reads as signed out (200 null, not an error)", async () => {
      const forger = new Browser(toWorker, workerOrigin)
      forger.jar.set("authjs.session-token", "forged-token-that-was-never-issued")
      expect(await forger.session()).toBeNull()
      expect(await page(forger)).toContain("Not signed in")
    })
  })

  describe("signing out", () => {
    it("deletes the session from KV; the old cookie no longer signs anyone in", async () => {
      const stolen = browser.jar.get("authjs.session-token")!
      const csrfToken = await browser.csrfToken()
      redirectTarget(await browser.request("/auth/signout", { form: { csrfToken } }), workerOrigin)
      expect(await kvKeys("session")).toEqual([])
      expect(await page(browser)).toContain("Not signed in")
      const replay = new Browser(toWorker, workerOrigin)
      replay.jar.set("authjs.session-token", stolen)
      expect(await replay.session()).toBeNull()
    })

    it("a second sign-in finds the stored user again instead of creating another", async () => {
      await signIn(browser)
      expect(await kvKeys("user")).toHaveLength(1)
      expect(await kvKeys("session")).toHaveLength(1)
      expect(await page(browser)).toContain("Signed in as Demo User")
    })
  })
})
