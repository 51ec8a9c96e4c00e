/**
 * Spec §2.12 and §2.19: the logger. A custom logger may set only some of `debug`, `error`,
 * `warn`; the ones it leaves out write to the console. `debug: true` turns on the console's
 * debug lines and is ignored when the app brings its own `logger.debug`, which then gets
 * every debug message (as Auth.js 0.41's `setLogger`). Debug messages carry no secret.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { Auth as AuthJs } from "@auth/core"
import { Auth } from "@portcullis/core"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { ada, Browser, credentialsConfig, direct, SECRET } from "../helpers.js"

afterEach(() => vi.restoreAllMocks())

/** Console output by stream, as lines. */
function spyConsole() {
  const out = { log: [] as string[], warn: [] as string[], error: [] as string[] }
  for (const stream of ["log", "warn", "error"] as const) {
    vi.spyOn(console, stream).mockImplementation((...parts: unknown[]) => void out[stream].push(parts.map(String).join(" ")))
  }
  return out
}

/** A request whose session cookie makes the adapter be asked: a debug message at least. */
const sessionRequest = () => new Request("http://localhost:3000/auth/session", { headers: { cookie: "authjs.session-token=not-a-session" } })

describe("a partial logger (§2.19)", () => {
  it("keeps the app's methods and sends the ones it leaves out to the console", async () => {
    const out = spyConsole()
    const warnings: string[] = []
    // Only warn: a short secret warns (to the app), a throwing authorize errors (to the console).
    const config = credentialsConfig({ secret: "too-short", logger: { warn: (code) => void warnings.push(code) } })
    const browser = new Browser(direct(config))
    await browser.signIn()
    expect(warnings).toContain("short-secret")
    expect(out.warn.join("\n")).not.toContain("short-secret")

    const failing = credentialsConfig({
      logger: { warn: () => {} },
      providers: [{ id: "credentials", name: "C", type: "credentials", credentials: {}, authorize: () => Promise.reject(new Error("directory offline")) }],
    })
    await new Browser(direct(failing)).signIn()
    expect(out.error.join("\n")).toMatch(/\[auth\]\[error\]/)
    expect(out.error.join("\n")).toContain("directory offline")
  })

  it("an app error logger leaves warnings on the console", async () => {
    const out = spyConsole()
    const errors: Error[] = []
    await Auth(sessionRequest(), { secret: "another-short-one", trustHost: true, providers: [], logger: { error: (e) => void errors.push(e) } })
    expect(out.warn.some((l) => l.startsWith("[auth][warn][short-secret]"))).toBe(true)
  })
})

describe("debug with a custom logger (§2.12)", () => {
  it("the app's logger.debug gets debug messages without debug: true, as Auth.js's does", async () => {
    const ours: string[] = []
    const theirs: string[] = []
    const logger = (into: string[]) => ({ debug: (message: string) => void into.push(message), error: () => {}, warn: () => {} })
    await Auth(sessionRequest(), { secret: SECRET, trustHost: true, providers: [], adapter: MemoryAdapter(), logger: logger(ours) })
    await AuthJs(sessionRequest(), { secret: SECRET, trustHost: true, providers: [], adapter: MemoryAdapter() as any, logger: logger(theirs) })
    expect(theirs.length).toBeGreaterThan(0)
    expect(ours).toContain("adapter_getSessionAndUser")
  })

  it("debug: false does not silence the app's logger.debug either", async () => {
    const calls: string[] = []
    await Auth(sessionRequest(), { secret: SECRET, trustHost: true, providers: [], adapter: MemoryAdapter(), debug: false, logger: { debug: (m) => void calls.push(m) } })
    expect(calls).toContain("adapter_getSessionAndUser")
  })

  it("without a custom logger.debug, debug: true prints [auth][debug] lines to the console and debug off prints none", async () => {
    const out = spyConsole()
    await Auth(sessionRequest(), { secret: SECRET, trustHost: true, providers: [], adapter: MemoryAdapter() })
    expect(out.log.filter((l) => l.startsWith("[auth][debug]"))).toEqual([])
    await Auth(sessionRequest(), { secret: SECRET, trustHost: true, providers: [], adapter: MemoryAdapter(), debug: true })
    expect(out.log.some((l) => l.startsWith("[auth][debug]: adapter_getSessionAndUser"))).toBe(true)
    expect(out.warn.some((l) => l.startsWith("[auth][warn][debug-enabled]"))).toBe(true)
  })

  it("no debug message carries a token, a password or a secret", async () => {
    const logged: string[] = []
    const config = credentialsConfig({
      adapter: MemoryAdapter(),
      session: { strategy: "database" },
      logger: { debug: (message, metadata) => void logged.push(`${message} ${JSON.stringify(metadata ?? null)}`), error: () => {}, warn: () => {} },
    })
    const browser = new Browser(direct(config))
    const csrf = await browser.csrfToken()
    await browser.signIn()
    await browser.session()
    const sessionToken = browser.sessionCookie()!
    await browser.signOut()
    expect(logged.length).toBeGreaterThan(0)
    const all = logged.join("\n")
    for (const secret of [sessionToken, csrf, ada.password, SECRET]) expect(all).not.toContain(secret)
  })
})
