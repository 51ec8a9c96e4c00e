import { afterEach, describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { encode } from "@portcullis/core/jwt"
import { Browser, SECRET, credentialsConfig, direct } from "../helpers.js"

/**
 * Log flooding (issue #12, item 5). An attacker sending garbage session cookies wrote
 * 268,000 error lines a minute: one `logger.error` per cookie. An unreadable, tampered,
 * foreign or expired cookie is expected input; it is logged as a `warn`, at most one line
 * per kind per minute, and the next line of that kind says how many were suppressed. Real
 * errors are still logged as errors, every time.
 */
const salt = "authjs.session-token"

afterEach(() => vi.useRealTimers())

interface Line {
  level: "error" | "warn" | "debug"
  code: string
  details?: Record<string, unknown>
  text: string
}

function recordingLogger() {
  const lines: Line[] = []
  const logger = {
    error: (e: Error) => lines.push({ level: "error", code: (e as { type?: string }).type ?? e.name, text: `${e.message} ${(e.cause as { err?: Error } | undefined)?.err?.message ?? ""}` }),
    warn: (code: string, details?: Record<string, unknown>) => lines.push({ level: "warn", code, details, text: `${code} ${JSON.stringify(details ?? {})}` }),
    debug: (message: string, meta?: unknown) => lines.push({ level: "debug", code: message, text: `${message} ${JSON.stringify(meta ?? {})}` }),
  }
  return { lines, logger }
}

/** The attacker's cookie jar: every kind of garbage, each value unique. */
async function garbageCookies() {
  const real = await encode({ token: { sub: "victim" }, secret: SECRET, salt })
  const foreign = await encode({ token: { sub: "x" }, secret: "somebody-elses-secret-somebody-elses", salt })
  const expired = await encode({ token: { sub: "x" }, secret: SECRET, salt, maxAge: -3600 })
  const parts = real.split(".")
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url")
  return (i: number): string => {
    switch (i % 6) {
      case 0:
        return `${salt}=garbage-${i}`
      case 1:
        return `${salt}=${b64({ alg: "dir", enc: `A${i}GCM` })}.a.b.c.d`
      case 2:
        return `${salt}=${foreign}`
      case 3: {
        const tag = parts[4]!
        const flipped = tag.slice(0, 3) + (tag[3] === "A" ? "B" : "A") + tag.slice(4)
        return `${salt}=${[...parts.slice(0, 4), flipped].join(".")}`
      }
      case 4:
        return `${salt}=${expired}`
      default:
        return `${salt}.0=${parts[0]}; ${salt}.2=${i}`
    }
  }
}

function sessionWith(config: AuthConfig, cookie: string) {
  return direct(config)(new Request("http://localhost:3000/auth/session", { headers: { cookie } }))
}

describe("unreadable session cookies are warnings, rate-limited per kind", () => {
  it("10,000 garbage cookies → at most one line per kind, no error line, no token in the log", async () => {
    const { lines, logger } = recordingLogger()
    const config = credentialsConfig({ logger })
    const cookie = await garbageCookies()
    const sent: string[] = []
    for (let i = 0; i < 10_000; i++) {
      const value = cookie(i)
      if (i < 12) sent.push(value.split("=")[1]!)
      const response = await sessionWith(config, value)
      expect(response.status).toBe(200)
      expect(await response.json()).toBeNull()
      expect(response.headers.getSetCookie().some((c) => /Max-Age=0/.test(c))).toBe(true)
    }
    expect(lines.filter((l) => l.level === "error")).toEqual([])
    expect(lines.length).toBeLessThanOrEqual(6)
    expect(lines.every((l) => l.level === "warn" && l.code === "session-cookie-unreadable")).toBe(true)
    expect(new Set(lines.map((l) => l.details?.kind))).toEqual(new Set(["malformed", "refused", "foreign", "tampered", "expired"]))
    const text = lines.map((l) => l.text).join("\n")
    for (const value of sent) expect(text).not.toContain(value)
  })

  it("a minute later, the next line of a kind carries the count of those suppressed", async () => {
    vi.useFakeTimers({ toFake: ["Date"] })
    const { lines, logger } = recordingLogger()
    const config = credentialsConfig({ logger })
    for (let i = 0; i < 500; i++) await sessionWith(config, `${salt}=garbage-${i}`)
    expect(lines).toHaveLength(1)
    expect(lines[0]!.details).toEqual({ kind: "malformed", cookie: salt })

    vi.setSystemTime(Date.now() + 61_000)
    await sessionWith(config, `${salt}=garbage-again`)
    expect(lines).toHaveLength(2)
    expect(lines[1]!.details).toMatchObject({ kind: "malformed", suppressed: 499, windowSeconds: 60 })
  })

  it("the limit is per configuration: a flood against one app does not silence another", async () => {
    const a = recordingLogger()
    const b = recordingLogger()
    const configA = credentialsConfig({ logger: a.logger })
    const configB = credentialsConfig({ logger: b.logger })
    for (let i = 0; i < 200; i++) await sessionWith(configA, `${salt}=garbage-${i}`)
    await sessionWith(configB, `${salt}=garbage`)
    expect(a.lines).toHaveLength(1)
    expect(b.lines).toHaveLength(1)
  })
})

describe("real errors are still errors, every time", () => {
  it("a jwt callback that throws is logged as JWTSessionError at error level, despite a flood of garbage", async () => {
    const { lines, logger } = recordingLogger()
    const config = credentialsConfig({
      logger,
      callbacks: {
        jwt({ token }) {
          if (token.name === "Ada Lovelace" && !token.sub?.startsWith("user-")) throw new Error("the app's database is down")
          return token
        },
      },
    })
    for (let i = 0; i < 1000; i++) await sessionWith(config, `${salt}=garbage-${i}`)
    const broken = await encode({ token: { sub: "42", name: "Ada Lovelace" }, secret: SECRET, salt })
    for (let i = 0; i < 3; i++) expect(await (await sessionWith(config, `${salt}=${broken}`)).json()).toBeNull()
    const errors = lines.filter((l) => l.level === "error")
    expect(errors).toHaveLength(3)
    expect(errors.every((l) => l.code === "JWTSessionError" && l.text.includes("database is down"))).toBe(true)
    // And a real session still works.
    const browser = new Browser(direct(config))
    await browser.signIn()
    expect((await browser.session()).user.name).toBe("Ada Lovelace")
  })

  it("a custom jwt.decode that crashes is an error; one that answers null is a warning", async () => {
    const { lines, logger } = recordingLogger()
    const crashing = credentialsConfig({ logger, jwt: { decode: () => Promise.reject(new TypeError("decoder bug")) } })
    await sessionWith(crashing, `${salt}=anything`)
    await sessionWith(crashing, `${salt}=anything-else`)
    expect(lines.map((l) => l.level)).toEqual(["error", "error"])

    const refusing = recordingLogger()
    const nulling = credentialsConfig({ logger: refusing.logger, jwt: { decode: () => null } })
    for (let i = 0; i < 50; i++) await sessionWith(nulling, `${salt}=x${i}`)
    expect(refusing.lines).toHaveLength(1)
    expect(refusing.lines[0]).toMatchObject({ level: "warn", details: { kind: "rejected" } })
  })
})
