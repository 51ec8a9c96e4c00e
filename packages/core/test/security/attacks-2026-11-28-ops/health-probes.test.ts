/**
 * Attacks on the health endpoint (issue 29): whoever can reach `GET <basePath>/health`
 * tries to make it probe the stores when it is off, probe them more than once a second, hang
 * the server behind a hanging store, read something of the stores' errors, or make
 * `health()` throw. Each attack over a real HTTP server, as a client sends it.
 */
import { request as httpRequest } from "node:http"
import { afterEach, describe, expect, it } from "vitest"
import type { Adapter } from "@portcullis/core/adapters"
import type { AuthConfig } from "@portcullis/core"
import { health } from "@portcullis/core/integration"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { credentialsConfig } from "../../helpers.js"
import { httpServer, type TestServer } from "../../http-server.js"
import { consoleLines } from "../../logs/support.js"

const DSN = "postgres://portcullis:hunter2@db.internal.example:5432/app"

/** A memory adapter whose `getUser` calls are counted, and can fail (with a DSN in the message) or hang. */
function countedAdapter(mode: { fail?: () => unknown; hang?: boolean } = {}) {
  const adapter = MemoryAdapter() as Adapter
  const getUser = adapter.getUser!.bind(adapter)
  const counter = { calls: 0 }
  adapter.getUser = async (id) => {
    counter.calls++
    if (mode.fail) throw mode.fail()
    if (mode.hang) return new Promise<never>(() => {})
    return getUser(id)
  }
  return { adapter, counter }
}

const quiet = { error: () => {}, warn: () => {}, debug: () => {} }
function config(adapter: Adapter, extra: Partial<AuthConfig> = {}): AuthConfig {
  return credentialsConfig({ adapter, session: { strategy: "database" }, logger: quiet, ...extra })
}

/** A raw request, with whatever method and `Host` the attacker picks (fetch forbids setting Host). */
function raw(server: TestServer, method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: server.port, method, path, headers, agent: false }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (body += chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on("error", reject)
    req.end()
  })
}

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

describe("the endpoint left off", () => {
  it("answers every spelling of the path as an unknown action and probes nothing", async () => {
    const { adapter, counter } = countedAdapter()
    server = await httpServer(config(adapter))
    for (const path of ["/auth/health", "/auth/health/", "/auth/health?x=1", "/auth//health", "/auth/HEALTH", "/auth/health%2f", "/auth/%68ealth"]) {
      const response = await raw(server, "GET", path)
      expect(response.status, path).toBeGreaterThanOrEqual(400)
      expect(response.body, path).not.toContain('"checks"')
    }
    expect(counter.calls).toBe(0)
  })
})

describe("methods other than GET", () => {
  it("answer without probing a store: HEAD, OPTIONS, POST, PUT, DELETE", async () => {
    const { adapter, counter } = countedAdapter()
    server = await httpServer(config(adapter, { health: { endpoint: true } }))
    for (const method of ["HEAD", "OPTIONS", "POST", "PUT", "DELETE", "PATCH"]) {
      const response = await raw(server, method, "/auth/health", { "content-type": "application/x-www-form-urlencoded", "content-length": "0" })
      expect(response.status, method).toBe(405)
      expect(response.headers["set-cookie"], method).toBeUndefined()
    }
    expect(counter.calls).toBe(0)
  })
})

describe("a flood of probes", () => {
  it("500 at once, each with its own query string and Host header, read the adapter once a second at most", { timeout: 30_000 }, async () => {
    const { adapter, counter } = countedAdapter()
    server = await httpServer(config(adapter, { health: { endpoint: true } }))
    const started = Date.now()
    const answers = await Promise.all(
      Array.from({ length: 500 }, (_, i) => raw(server!, "GET", `/auth/health?nocache=${i}&t=${"x".repeat(i % 50)}`, { host: `tenant-${i}.example:${1000 + i}`, "x-forwarded-host": `evil-${i}.example`, "cache-control": "no-cache" })),
    )
    for (const answer of answers) {
      expect(answer.status).toBe(200)
      expect(JSON.parse(answer.body).status).toBe("ok")
      expect(answer.headers["set-cookie"]).toBeUndefined()
    }
    // One read answers every probe for a second after it: on a quiet machine the flood takes
    // well under that (one read); on a loaded one it may span a few seconds — still one a second,
    // never one per probe.
    expect(counter.calls).toBeGreaterThanOrEqual(1)
    expect(counter.calls).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / 1000))
  })

  it("behind a hanging database, 300 probes all answer by the bound, and the database gets one read a second at most", { timeout: 30_000 }, async () => {
    const { adapter, counter } = countedAdapter({ hang: true })
    server = await httpServer(config(adapter, { health: { endpoint: true, timeout: 200 } }))
    const started = performance.now()
    const answers = await Promise.all(Array.from({ length: 300 }, (_, i) => raw(server!, "GET", `/auth/health?i=${i}`)))
    const took = performance.now() - started
    for (const answer of answers) {
      expect(answer.status).toBe(503)
      expect(JSON.parse(answer.body).checks.adapter).toMatchObject({ status: "down", error: "timeout" })
    }
    // One read (it hangs; the report of its timeout answers every probe for a second after):
    // on a loaded machine the flood may outlast that second — still one read a second, never
    // one per probe.
    expect(counter.calls).toBeGreaterThanOrEqual(1)
    expect(counter.calls).toBeLessThanOrEqual(Math.ceil(took / 1000))
    expect(took).toBeLessThan(5_000)
    // The server still answers other requests.
    expect((await raw(server, "GET", "/auth/providers")).status).toBe(200)
  })
})

describe("what a probe touches", () => {
  it("calls no adapter method that writes, reads no cookie and sets none, whatever the probe sends", async () => {
    const adapter = MemoryAdapter() as Adapter
    const called: string[] = []
    for (const name of Object.keys(adapter) as Array<keyof Adapter>) {
      const method = adapter[name]
      if (typeof method !== "function") continue
      ;(adapter as Record<string, unknown>)[name] = (...args: unknown[]) => {
        called.push(name)
        return (method as (...a: unknown[]) => unknown).apply(adapter, args)
      }
    }
    server = await httpServer(config(adapter, { health: { endpoint: true } }))
    // A garbage session cookie, as a browser of a signed-out user sends: a session route would delete it (and log).
    const response = await raw(server, "GET", "/auth/health?callbackUrl=https://evil.example", { cookie: "authjs.session-token=garbage; authjs.csrf-token=garbage; authjs.callback-url=https%3A%2F%2Fevil.example" })
    expect(response.status).toBe(200)
    expect(response.headers["set-cookie"]).toBeUndefined()
    expect(response.headers["cache-control"]).toBe("no-store")
    expect(called).toEqual(["getUser"])
    expect(response.body).not.toMatch(/evil\.example|garbage/)
  })
})

describe("what a failing store's report shows", () => {
  const hostile: Array<[string, () => unknown]> = [
    ["a driver error with the DSN in its message", () => Object.assign(new Error(`connect ECONNREFUSED ${DSN}`), { code: "ECONNREFUSED" })],
    ["an error whose code is the DSN", () => Object.assign(new Error("refused"), { code: DSN })],
    ["an error whose class name is the DSN", () => Object.assign(new Error("refused"), { name: DSN })],
    ["an error whose cause's code is the DSN", () => new Error("wrapped", { cause: Object.assign(new Error(DSN), { code: `${DSN} ` }) })],
    ["a thrown string", () => DSN],
    ["a thrown null", () => null],
    ["an error whose code cannot be read", () => Object.defineProperty(new Error(DSN), "code", { get: () => { throw new Error(DSN) } })],
    ["an error whose cause cannot be read", () => Object.defineProperty(new Error(DSN), "cause", { get: () => { throw new Error(DSN) } })],
  ]
  for (const [name, fail] of hostile) {
    it(`${name}: 503 with a short code, nothing of the DSN, and health() does not throw`, async () => {
      const { adapter } = countedAdapter({ fail })
      const own = config(adapter, { health: { endpoint: true } })
      server = await httpServer(own)
      const response = await raw(server, "GET", "/auth/health")
      expect(response.status).toBe(503)
      expect(response.body).not.toMatch(/hunter2|db\.internal|postgres:/)
      const report = JSON.parse(response.body)
      expect(report.checks.adapter.status).toBe("down")
      expect(report.checks.adapter.error).toMatch(/^[A-Za-z0-9_.-]{1,48}$/)

      const direct = await health(config(countedAdapter({ fail }).adapter))
      expect(direct.status).toBe("down")
      expect(JSON.stringify(direct)).not.toMatch(/hunter2|db\.internal|postgres:/)
    })
  }
})

describe("probes of a database that refuses, every one a fresh run", () => {
  it("write no log line: the report is the signal (the DSN in the driver's message never reaches the log through them either)", { timeout: 20_000 }, async () => {
    const { adapter, counter } = countedAdapter({ fail: () => Object.assign(new Error(`connect ECONNREFUSED ${DSN}`), { code: "ECONNREFUSED" }) })
    server = await httpServer(credentialsConfig({ adapter, session: { strategy: "database" }, health: { endpoint: true } }))
    const printed = consoleLines()
    try {
      for (let i = 0; i < 3; i++) {
        expect((await raw(server, "GET", `/auth/health?i=${i}`)).status).toBe(503)
        await new Promise((resolve) => setTimeout(resolve, 1_050))
      }
    } finally {
      printed.restore()
    }
    expect(counter.calls).toBe(3)
    expect(printed.lines).toEqual([])
  })
})

describe("health() of a configuration an app got wrong", () => {
  it("answers down with the problem's type rather than throwing", async () => {
    const report = await health({ providers: [], adapter: MemoryAdapter(), logger: quiet } as AuthConfig)
    expect(report.status).toBe("down")
    expect(report.checks.config.error).toMatch(/^[A-Za-z]+$/)
  })
})
