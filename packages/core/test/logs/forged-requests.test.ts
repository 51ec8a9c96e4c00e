/**
 * Issue 29, log levels by cause: a refusal the client caused is a rate-limited warning
 * with a stable code and no stack. Measured before: every forged CSRF token, magic link,
 * OAuth callback, two-factor cookie, malformed JSON body and wrong password wrote one
 * `[auth][error]` with a stack (380–718 bytes each; 2,000 forged OAuth callbacks from one
 * client wrote 2.9 MB/s). Done when 10,000 forged requests write fewer than 50 lines.
 *
 * Each attack runs as an attacker sends it: over a real HTTP server, 10,000 requests, 20
 * in flight, against the default console logger, whose printed lines are counted.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { ada, credentialsConfig } from "../helpers.js"
import { httpServer, type TestServer } from "../http-server.js"
import { consoleLines, flood, STACK_LINE } from "./support.js"

const FORGED = 10_000
const IN_FLIGHT = 20

const op = {
  id: "op",
  name: "OP",
  type: "oauth",
  authorization: "https://op.example/authorize",
  token: "https://op.example/token",
  userinfo: "https://op.example/userinfo",
  clientId: "client",
  clientSecret: "secret",
} as OAuthConfig<any>

/** One app with every way in an attacker forges: credentials, magic links, an OAuth provider, two-factor; no rate limit. */
function appConfig(): AuthConfig {
  const base = credentialsConfig()
  return {
    ...base,
    adapter: MemoryAdapter(),
    session: { strategy: "jwt" },
    twoFactor: {},
    rateLimit: false,
    providers: [...base.providers, Nodemailer({ id: "email", server: "smtp://127.0.0.1:1", from: "auth@example.com", interstitial: false }), op],
  }
}

let server: TestServer
/** A CSRF token and its cookie, as any visitor gets them from `GET /csrf`. */
let csrf: { token: string; cookie: string }

beforeAll(async () => {
  server = await httpServer(appConfig())
  const response = await fetch(`${server.origin}/auth/csrf`)
  const { csrfToken } = (await response.json()) as { csrfToken: string }
  const cookie = response.headers.getSetCookie().map((c) => c.split(";")[0]!).join("; ")
  csrf = { token: csrfToken, cookie }
})
afterAll(() => server.close())

let printed: ReturnType<typeof consoleLines> | undefined
afterEach(() => printed?.restore())

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()
const post = (path: string, body: string, headers: Record<string, string>) =>
  fetch(`${server.origin}${path}`, { method: "POST", body, headers, redirect: "manual" })
const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.origin}${path}`, { headers, redirect: "manual" })

/** Where a refusal sends the browser: the `?error=` of its redirect. */
const errorOf = (response: Response) => new URL(response.headers.get("location") ?? "http://x/").searchParams.get("error")

interface Attack {
  name: string
  code: string
  send(i: number): Promise<Response>
  refused(response: Response): void
}

const attacks: Attack[] = [
  {
    name: "a form post with a forged CSRF token",
    code: "csrf-refused",
    send: (i) => post("/auth/callback/credentials", form({ csrfToken: `forged-${i}`, ...ada }), { "content-type": "application/x-www-form-urlencoded" }),
    refused: (r) => expect(errorOf(r)).toBe("MissingCSRF"),
  },
  {
    name: "a forged magic-link callback",
    code: "verification-refused",
    send: (i) => get(`/auth/callback/email?token=${"f".repeat(40)}${i}&email=victim%40example.com`),
    refused: (r) => expect(errorOf(r)).toBe("Verification"),
  },
  {
    name: "a forged OAuth callback (no check cookies)",
    code: "oauth-check-refused",
    send: (i) => get(`/auth/callback/op?code=stolen-${i}&state=forged-${i}`),
    refused: (r) => expect(errorOf(r)).toBe("Configuration"),
  },
  {
    name: "a garbage two-factor challenge cookie",
    code: "challenge-refused",
    send: (i) => post("/auth/two-factor", form({ code: "123456", csrfToken: csrf.token }), { "content-type": "application/x-www-form-urlencoded", cookie: `${csrf.cookie}; portcullis.two-factor=garbage-${i}` }),
    refused: (r) => expect(errorOf(r)).toBe("TwoFactorChallengeInvalid"),
  },
  {
    name: "a malformed JSON body",
    code: "request-malformed",
    send: (i) => post("/auth/callback/credentials", `{"csrfToken": "${i}", `, { "content-type": "application/json" }),
    refused: (r) => expect(r.status).toBe(400),
  },
  {
    name: "a wrong password (rateLimit off)",
    code: "credentials-refused",
    send: (i) => post("/auth/callback/credentials", form({ csrfToken: csrf.token, username: ada.username, password: `guess-${i}` }), { "content-type": "application/x-www-form-urlencoded", cookie: csrf.cookie }),
    refused: (r) => expect(errorOf(r)).toBe("CredentialsSignin"),
  },
]

for (const attack of attacks) {
  describe(`10,000 of ${attack.name}`, () => {
    it(`write fewer than 50 log lines: ${attack.code} warnings, no error, no stack`, { timeout: 120_000 }, async () => {
      printed = consoleLines()
      await flood(FORGED, IN_FLIGHT, attack.send, (response) => attack.refused(response))
      const { lines, calls } = printed
      printed.restore()

      expect(lines.length).toBeLessThan(50)
      expect(calls.filter((c) => c.level === "error")).toEqual([])
      expect(lines.filter((l) => STACK_LINE.test(l.text))).toEqual([])
      expect(calls.length).toBeGreaterThan(0)
      for (const call of calls) expect(call.text).toMatch(new RegExp(`^\\[auth\\]\\[warn\\]\\[${attack.code}\\] `))
    })
  })
}

describe("the warning of a refusal", () => {
  it("names the error's type and says how many were suppressed once the window is over, with no token or password in it", { timeout: 30_000 }, async () => {
    const warnings: [string, Record<string, unknown> | undefined][] = []
    const logger = { error: (e: Error) => warnings.push(["error", { message: e.message }]), warn: (code: string, details?: Record<string, unknown>) => void warnings.push([code, details]) }
    const own = await httpServer({ ...appConfig(), logger })
    try {
      const csrfResponse = await fetch(`${own.origin}/auth/csrf`)
      const { csrfToken } = (await csrfResponse.json()) as { csrfToken: string }
      const cookie = csrfResponse.headers.getSetCookie().map((c) => c.split(";")[0]!).join("; ")
      const guess = (password: string) =>
        fetch(`${own.origin}/auth/callback/credentials`, { method: "POST", redirect: "manual", body: form({ csrfToken, username: "ada", password }), headers: { "content-type": "application/x-www-form-urlencoded", cookie } })
      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() })
      for (let i = 0; i < 5; i++) await guess(`secret-guess-${i}`)
      expect(warnings).toEqual([["credentials-refused", { kind: "CredentialsSignin", message: expect.any(String), code: "credentials" }]])
      vi.setSystemTime(Date.now() + 61_000)
      await guess("secret-guess-5")
      expect(warnings).toHaveLength(2)
      expect(warnings[1]).toEqual(["credentials-refused", { kind: "CredentialsSignin", message: expect.any(String), code: "credentials", suppressed: 4, windowSeconds: 60 }])
      expect(JSON.stringify(warnings)).not.toContain("secret-guess")
      expect(JSON.stringify(warnings)).not.toContain(csrfToken)
    } finally {
      vi.useRealTimers()
      await own.close()
    }
  })
})
