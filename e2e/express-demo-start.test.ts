import { spawn, type ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { exchange } from "../packages/core/test/raw-http.js"
import { freePort } from "./support.js"

/**
 * Issue 30, the demo as `npm start` runs it (the built packages, its own process), without
 * a browser: a request that arrives while it starts is answered, never left hanging (one
 * waited 12 minutes: the server listened before its handler was attached), and sign-in
 * works at both loopback names (`127.0.0.1` failed with MissingCSRF when AUTH_URL said
 * `localhost`), while any other Host is refused.
 */

type Attempt = { at: number; outcome: "refused" | "hung" | number }

/** One GET on 127.0.0.1 with the given Host; "refused" before the port is open, "hung" after `timeoutMs`. */
function probe(port: number, host: string, timeoutMs: number): Promise<Attempt["outcome"]> {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path: "/", headers: { host }, agent: false }, (res) => {
      res.resume()
      res.on("end", () => resolve(res.statusCode ?? 0))
    })
    req.setTimeout(timeoutMs, () => {
      req.destroy()
      resolve("hung")
    })
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNREFUSED") resolve("refused")
      else if (!req.destroyed || error.code !== "ECONNRESET") resolve("hung")
    })
    req.end()
  })
}

describe("the Express demo (npm start)", () => {
  let child: ChildProcess
  let port: number
  const output: string[] = []
  const attempts: Attempt[] = []
  let firstOk = 0
  const dataDir = mkdtempSync(join(tmpdir(), "portcullis-demo-start-"))

  beforeAll(async () => {
    port = await freePort()
    const started = Date.now()
    child = spawn(process.execPath, [join(import.meta.dirname, "..", "examples", "express", "src", "server.ts")], {
      env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", AUTH_URL: "", DEMO_DATA_DIR: dataDir },
      stdio: ["ignore", "pipe", "pipe"],
    })
    child.stdout!.on("data", (c: Buffer) => output.push(c.toString()))
    child.stderr!.on("data", (c: Buffer) => output.push(c.toString()))
    // Ask from the first millisecond, several requests in flight, until one gets its 200.
    // Each must be refused (port not open yet) or answered: a request that is still
    // waiting after 5 s is the hang this guards against.
    while (!firstOk && Date.now() - started < 30_000 && child.exitCode === null) {
      const batch = await Promise.all([0, 1, 2].map(async () => ({ at: Date.now() - started, outcome: await probe(port, `127.0.0.1:${port}`, 5_000) })))
      attempts.push(...batch)
      const ok = batch.find((a) => a.outcome === 200)
      if (ok) firstOk = Date.now() - started
      else if (batch.every((a) => a.outcome === "refused")) await new Promise((r) => setTimeout(r, 10))
    }
  }, 60_000)

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve))
      child.kill("SIGTERM")
      await exited
    }
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("answers every request that arrives while it starts, and its first 200 comes within 20 s", () => {
    expect(firstOk, output.join("")).toBeGreaterThan(0)
    expect(attempts.filter((a) => a.outcome === "hung"), output.join("")).toEqual([])
    expect(attempts.filter((a) => typeof a.outcome === "number" && a.outcome !== 200)).toEqual([])
    expect(firstOk).toBeLessThan(20_000)
    console.log(`demo: first 200 ${firstOk} ms after spawn (${attempts.length} requests, ${attempts.filter((a) => a.outcome === "refused").length} refused before listen)`)
  })

  it("says where it listens: both loopback names", () => {
    expect(output.join("")).toContain(`listening on http://localhost:${port} (and http://127.0.0.1:${port})`)
  })

  for (const name of ["localhost", "127.0.0.1"]) {
    it(`signs in with the demo account at http://${name}:<port>, through the CSRF check`, async () => {
      const host = `${name}:${port}`
      const origin = `http://${host}`
      const csrf = await exchange(port, "GET", "/auth/csrf", { host })
      expect(csrf.status).toBe(200)
      const { csrfToken } = JSON.parse(csrf.body) as { csrfToken: string }
      const cookies = new Map(csrf.setCookie.map((c) => c.split(";")[0]!.split(/=(.*)/s) as [string, string]))
      const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join("; ")

      const body = new URLSearchParams({ username: "demo", password: "portcullis", csrfToken, callbackUrl: `${origin}/` }).toString()
      const signIn = await exchange(port, "POST", "/auth/callback/credentials", { host, origin, cookie: cookieHeader(), "content-type": "application/x-www-form-urlencoded" }, body)
      expect(signIn.status, signIn.body).toBe(302)
      expect(signIn.headers.location).toBe(`${origin}/`)
      for (const c of signIn.setCookie) {
        const [k, v] = c.split(";")[0]!.split(/=(.*)/s) as [string, string]
        cookies.set(k, v)
      }
      expect(cookies.get("authjs.session-token")).toMatch(/^[0-9a-f]{64}$/)

      const session = await exchange(port, "GET", "/auth/session", { host, cookie: cookieHeader() })
      expect(JSON.parse(session.body)).toMatchObject({ user: { name: "Demo User", email: "demo@portcullis.dev" } })
    })
  }

  it("refuses any other Host (no trustHost), with a 400 and no stack", async () => {
    for (const path of ["/", "/auth/signin", "/auth/csrf"]) {
      const answer = await exchange(port, "GET", path, { host: "evil.example" })
      expect(answer.status, path).toBe(400)
      expect(answer.body, path).not.toContain("evil.example/")
      expect(answer.body, path).not.toMatch(/\bat .+:\d+:\d+\)?/)
    }
  })
})
