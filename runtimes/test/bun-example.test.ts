/**
 * The Bun example (`runtimes/examples/bun-server.ts`, the one `docs/runtimes.md` shows):
 * started as `bun runtimes/examples/bun-server.ts` on a loopback port and driven over real
 * HTTP like a browser, signing in through a real `oidc-provider`.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { createServer } from "node:net"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startDemoOidcProvider, type DemoOidcProvider } from "@portcullis/example-kit/oidc-server"
import { Browser, redirectTarget, throughProvider } from "../scenarios.ts"
import { describeWhere, locate } from "./support.ts"

const example = fileURLToPath(new URL("../examples/bun-server.ts", import.meta.url))
const bun = locate({ pkg: "@oven/bun-linux-x64", file: "bin/bun" })

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** Starts the example and resolves with its origin once it prints that it listens. */
function start(command: string, env: Record<string, string>): Promise<{ child: ChildProcess; origin: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [example], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    const timer = setTimeout(() => reject(new Error(`the Bun example did not start within 20 s:\n${output}`)), 20_000)
    const read = (chunk: Buffer) => {
      output += chunk
      const origin = /listening on (http:\/\/\S+)/.exec(output)?.[1]
      if (origin) {
        clearTimeout(timer)
        resolve({ child, origin })
      }
    }
    child.stdout!.on("data", read)
    child.stderr!.on("data", read)
    child.once("exit", (code) => reject(new Error(`the Bun example exited with ${code}:\n${output}`)))
  })
}

describeWhere(bun, "The Bun example serves Portcullis with Bun.serve", () => {
  let op: DemoOidcProvider
  let app: { child: ChildProcess; origin: string }
  let browser: Browser

  beforeAll(async () => {
    const port = await freePort()
    const client = { clientId: "bun-example", clientSecret: "bun-example-secret" }
    op = await startDemoOidcProvider({ port: 0, ...client, redirectUris: [`http://127.0.0.1:${port}/auth/callback/oidc`] })
    app = await start("path" in bun ? bun.path : "bun", {
      PORT: String(port),
      AUTH_SECRET: "bun-example-secret-with-at-least-32-characters",
      OIDC_ISSUER: op.issuer,
      OIDC_CLIENT_ID: client.clientId,
      OIDC_CLIENT_SECRET: client.clientSecret,
      OIDC_ALLOW_INSECURE_LOOPBACK: "1",
    })
    browser = new Browser((request) => fetch(request), app.origin)
  }, 60_000)
  afterAll(async () => {
    app?.child.kill()
    await op?.close()
  })

  describe("signing in through the OpenID provider", () => {
    it("ends on the page, signed in with a JWT session", async () => {
      const csrfToken = await browser.csrfToken()
      const begin = await browser.request("/auth/signin/oidc", { form: { csrfToken, callbackUrl: "/" } })
      const callback = await throughProvider(redirectTarget(begin, app.origin), app.origin)
      const done = await browser.request(callback.pathname + callback.search)
      expect(redirectTarget(done, app.origin).href).toBe(`${app.origin}/`)
      expect(browser.jar.get("authjs.session-token")?.split(".")).toHaveLength(5)
      expect(await (await browser.request("/")).text()).toContain("Signed in as Demo User")
    })
  })

  describe("hostile input", () => {
    it("a forged session cookie reads as signed out, not an error", async () => {
      const forger = new Browser((request) => fetch(request), app.origin)
      forger.jar.set("authjs.session-token", "not.a.real.token.at-all")
      expect(await forger.session()).toBeNull()
      const response = await forger.request("/")
      expect(response.status).toBe(200)
      expect(await response.text()).toContain("Not signed in")
    })
  })
})
