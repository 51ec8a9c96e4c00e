/**
 * Attacks on the audit trail (issue 29): a client tries to make an event lie about where it
 * came from or whose it is, to grow an event past its bound, and to turn a failing audit
 * sink into a log flood. Over a real HTTP server, with the default console logger counted.
 */
import { afterEach, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { AuditEvent } from "@portcullis/core/types"
import { ada, credentialsConfig } from "../../helpers.js"
import { httpServer, type TestServer } from "../../http-server.js"
import { consoleLines, flood, STACK_LINE } from "../../logs/support.js"

let server: TestServer | undefined
let printed: ReturnType<typeof consoleLines> | undefined
afterEach(async () => {
  printed?.restore()
  printed = undefined
  await server?.close()
  server = undefined
})

const quiet = { error: () => {}, warn: () => {}, debug: () => {} }

/** A server whose audit events are recorded. */
async function audited(extra: Partial<AuthConfig> = {}) {
  const events: AuditEvent[] = []
  server = await httpServer(credentialsConfig({ rateLimit: false, logger: quiet, events: { audit: (event) => void events.push(event) }, ...extra }))
  return events
}

/** A visitor's CSRF token and cookie, as `GET /csrf` hands them out. */
async function csrfOf(origin: string) {
  const response = await fetch(`${origin}/auth/csrf`)
  const { csrfToken } = (await response.json()) as { csrfToken: string }
  return { token: csrfToken, cookie: response.headers.getSetCookie().map((c) => c.split(";")[0]!).join("; ") }
}

/** A wrong-password sign-in from the attacker, with whatever headers and extra fields they add. */
async function wrongPassword(headers: Record<string, string> = {}, fields: Record<string, string> = {}) {
  const csrf = await csrfOf(server!.origin)
  return fetch(`${server!.origin}/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrf.cookie, ...headers },
    body: new URLSearchParams({ csrfToken: csrf.token, username: ada.username, password: "wrong-guess", ...fields }).toString(),
  })
}

describe("a client naming its own address", () => {
  it("without trustHost, X-Forwarded-For, X-Real-IP, Forwarded and CF-Connecting-IP put no address in the event", async () => {
    // No proxy in front: the app names its origin (the server's port is known once it listens,
    // before its first request resolves the configuration).
    const origins: string[] = []
    const events = await audited({ trustHost: false, trustedOrigins: origins })
    origins.push(server!.origin)
    const response = await wrongPassword({ "x-forwarded-for": "203.0.113.66", "x-real-ip": "203.0.113.67", forwarded: "for=203.0.113.68", "cf-connecting-ip": "203.0.113.69", "true-client-ip": "203.0.113.70" })
    expect(`${response.status} ${response.headers.get("location")} ${await response.clone().text()}`).toContain("error=CredentialsSignin")
    await response.body?.cancel()
    const failed = events.filter((e) => e.type === "signInFailed")
    expect(failed).toHaveLength(1)
    expect(JSON.stringify(events)).not.toMatch(/203\.0\.113\./)
  })

  it("under trustHost, the entries the client wrote before the proxy's are not the address, and junk is none", async () => {
    const events = await audited()
    for (const xff of ["203.0.113.66, 198.51.100.7", "198.51.100.7,203.0.113.66 ,", "<script>alert(1)</script>", `${"1".repeat(5000)}`, "::ffff:203.0.113.66%eth0, garbage"]) {
      const response = await wrongPassword({ "x-forwarded-for": xff })
      await response.body?.cancel()
    }
    const ips = events.filter((e) => e.type === "signInFailed").map((e) => e.ip)
    expect(ips).toHaveLength(5)
    expect(ips[0]).toBe("198.51.100.7")
    for (const ip of ips) if (ip !== undefined) expect(ip).toMatch(/^[0-9a-f.:]{2,45}$/)
    expect(JSON.stringify(events)).not.toMatch(/script|1111111111|garbage/)
  })
})

describe("a client naming a user, an actor or an outcome in its form", () => {
  it("is not believed: a refused sign-in names no user, no actor, and stays a failure", async () => {
    const events = await audited()
    const response = await wrongPassword({}, { userId: "user-ada", actor: "support@example.com", type: "signIn", outcome: "success", reason: "none", ip: "203.0.113.66", id: "spoofed-id" })
    await response.body?.cancel()
    expect(events).toHaveLength(1)
    const [event] = events
    expect(event).toMatchObject({ type: "signInFailed", outcome: "failure", reason: "CredentialsSignin" })
    expect(event!.userId).toBeUndefined()
    expect(event!.actor).toBeUndefined()
    expect(event!.id).not.toBe("spoofed-id")
    expect(JSON.stringify(event)).not.toMatch(/support@example|203\.0\.113|spoofed/)
  })
})

describe("an oversized User-Agent", () => {
  it("is kept to 512 characters, whatever bytes it is made of", async () => {
    const events = await audited()
    // HTTP carries header bytes, which Node reads as Latin-1: 12 KiB of ASCII, and of high
    // bytes (Node's own header limit, 16 KiB, refuses more before Portcullis sees it).
    const agents = ["A".repeat(12 * 1024), "\u00ff\u00e9".repeat(6 * 1024)]
    for (const agent of agents) {
      const response = await wrongPassword({ "user-agent": agent })
      await response.body?.cancel()
    }
    expect(events).toHaveLength(2)
    for (const event of events) expect(event.userAgent!.length).toBe(512)
  })
})

/** A wrong password with a CSRF token the attacker already holds (no `GET /csrf` per request). */
function wrongPasswordOn(csrf: { token: string; cookie: string }) {
  return fetch(`${server!.origin}/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrf.cookie },
    body: new URLSearchParams({ csrfToken: csrf.token, username: ada.username, password: "wrong-guess" }).toString(),
  })
}

describe("a failing audit sink under a flood of refused sign-ins", () => {
  // The app's audit handler writes to a database that is down: every call rejects. The
  // attacker sends wrong passwords (or forged forms), each of which emits signInFailed.
  // Each rejection is logged as an EventError with its stack: one [auth][error] and a stack
  // per forged request — the per-request flood issue 29 removed for the stores, back through
  // the audit sink. Bound: as for a store outage, O(1) lines a minute.
  it("writes O(1) lines: the first failure with its cause, then counts, not an error and a stack per forged request", { timeout: 60_000 }, async () => {
    let sinkDown = true
    server = await httpServer(
      credentialsConfig({
        rateLimit: false,
        events: {
          audit: async () => {
            if (sinkDown) throw Object.assign(new Error("connect ECONNREFUSED 10.0.0.5:5432"), { code: "ECONNREFUSED" })
          },
        },
      }),
    )
    const csrf = await csrfOf(server.origin)
    printed = consoleLines()
    await flood(
      500,
      10,
      () => wrongPasswordOn(csrf),
      (response) => expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBe("CredentialsSignin"),
    )
    // The sink comes back: the next event ends the outage.
    sinkDown = false
    await (await wrongPasswordOn(csrf)).body?.cancel()
    const { lines, calls } = printed
    printed.restore()
    expect(lines.length).toBeLessThan(50)
    // The operator still sees the outage's cause, once.
    const errors = calls.filter((c) => c.level === "error")
    expect(errors[0]!.text).toMatch(/EventError: The audit event handler threw/)
    expect(errors.map((c) => c.text).join("\n")).toMatch(/ECONNREFUSED 10\.0\.0\.5/)
    expect(errors.filter((c) => /^\[auth\]\[error\]/.test(c.text))).toHaveLength(1)
    expect(calls.some((c) => c.level === "warn" && c.text.includes("[store-recovered]") && c.text.includes('"store":"audit sink"'))).toBe(true)
  })
})

describe("a hanging audit sink", () => {
  // The audit handler is awaited (docs/observability.md: "a slow handler slows the
  // request"). One that never settles — a database that accepts the connection and never
  // answers — holds every refused sign-in open for ever: a client's wrong passwords pile up
  // requests (and sockets) on the server. No bound applies to the handler, unlike every
  // store call (adapterTimeout). Was a hole; now the audit handler is bounded by
  // adapterTimeout like a store call, and a timeout counts as an "audit sink" failure.
  it("does not hold a refused sign-in open longer than the stores' bound", { timeout: 15_000 }, async () => {
    server = await httpServer(credentialsConfig({ rateLimit: false, adapterTimeout: 1_000, logger: quiet, events: { audit: () => new Promise<void>(() => {}) } }))
    const csrf = await csrfOf(server.origin)
    const answered = await Promise.race([wrongPasswordOn(csrf).then((r) => r.status), new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 5_000))])
    expect(answered).toBe(302)
  })
})
