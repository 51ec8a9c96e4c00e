/**
 * Issue 28, item 2: an attacker holding a stolen session guesses the code that turns 2FA off
 * (or mints backup codes, or confirms an enrolment) on the app's settings page, served over
 * a real HTTP server. Before the fix, 400 of 400 wrong codes were judged and the right code
 * then turned 2FA off. Now the codes count against the user's wrong-code cap in the shared
 * store — with the rate limiter off (as under NODE_ENV=test, or `rateLimit: false`), across
 * instances and under concurrency: past ten wrong codes every further attempt, the right
 * code included, is refused unjudged (`RateLimited`), and 2FA stays on.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import type { Adapter } from "@portcullis/core/adapters"
import type { AuthConfig } from "@portcullis/core"
import {
  confirmTwoFactor,
  disableTwoFactor,
  getTwoFactorStatus,
  readSession,
  regenerateTwoFactorBackupCodes,
  startTwoFactor,
} from "@portcullis/core/integration"
import { totpCode } from "@portcullis/core/two-factor"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser } from "../helpers.js"
import { authListener } from "../http-server.js"
import { ADA_ID, enroll, firstFactor, secondFactor, twoFactorApp as baseApp } from "./support.js"
import { steppedUp } from "../step-up/support.js"

/** The two-factor app, with the user's id in the session as a settings page needs it. */
function twoFactorApp(extra: Partial<AuthConfig> = {}, adapter?: Adapter) {
  const callbacks = { session: ({ session, token }: any) => ({ ...session, user: { ...session.user, id: token.sub } }) }
  return baseApp({ callbacks, ...extra }, adapter)
}

/** A six-digit code that is not the secret's code at any step near now. */
function wrongCodes(secret: string, count: number): string[] {
  const near = new Set([-2, -1, 0, 1, 2].map((step) => totpCode(secret, Date.now() + step * 30_000)))
  const codes: string[] = []
  for (let n = 0; codes.length < count; n++) {
    const code = String(n).padStart(6, "0")
    if (!near.has(code)) codes.push(code)
  }
  return codes
}

type Action = "disable" | "regenerate" | "confirm"

/**
 * An app's security settings page on a real server: `POST /settings/two-factor/<action>`
 * with `code`, for the session's user (never an id from the body); the answer is the error
 * type, or `ok`. Everything under `/auth` is Portcullis.
 */
async function settingsServer(config: AuthConfig) {
  const auth = authListener(config)
  const server: Server = createServer(async (req, res) => {
    if (req.url?.startsWith("/auth/")) return auth(req, res)
    const action = /^\/settings\/two-factor\/(disable|regenerate|confirm)$/.exec(req.url ?? "")?.[1] as Action | undefined
    let body = ""
    for await (const chunk of req) body += chunk
    const code = new URLSearchParams(body).get("code") ?? ""
    const session = await readSession(`http://${req.headers.host}`, req.headers.cookie, config)
    res.setHeader("content-type", "application/json")
    if (!action || !session?.user?.id) {
      res.statusCode = 404
      return res.end(JSON.stringify({ error: "NotFound" }))
    }
    const input = { ...(await steppedUp(config, session.user.id)), code }
    try {
      if (action === "disable") await disableTwoFactor(input, config)
      else if (action === "regenerate") await regenerateTwoFactorBackupCodes(input, config)
      else await confirmTwoFactor(input, config)
      res.end(JSON.stringify({ result: "ok" }))
    } catch (error) {
      res.statusCode = (error as { type?: string }).type === "RateLimited" ? 429 : 400
      res.end(JSON.stringify({ result: (error as { type?: string }).type ?? "Error" }))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  servers.push(server)
  return {
    origin,
    browser: () => new Browser((request) => fetch(request, { redirect: "manual" }), origin),
    /** One attempt from `browser` at `action` with `code`: the result (`ok` or an error type). */
    async post(browser: Browser, action: Action, code: string): Promise<string> {
      const response = await browser.request(`/settings/two-factor/${action}`, { form: { code } })
      return ((await response.json()) as { result: string }).result
    },
  }
}

const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

/** Ada signs in with both factors on `site`; the attacker copies her session cookie. */
async function stolenSession(site: Awaited<ReturnType<typeof settingsServer>>, backupCodes: string[]): Promise<Browser> {
  const ada = site.browser()
  await firstFactor(ada)
  expect((await secondFactor(ada, backupCodes[9]!)).status).toBe(302)
  expect(ada.sessionCookie()).toBeDefined()
  const mallory = site.browser()
  for (const [name, cookie] of ada.jar) mallory.jar.set(name, cookie)
  return mallory
}

function tally(results: string[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const r of results) counts[r] = (counts[r] ?? 0) + 1
  return counts
}

describe("guessing the code that turns 2FA off, with a stolen session", () => {
  for (const rateLimit of [undefined, false] as const) {
    it(`400 wrong codes: 10 are judged, 390 refused unjudged, the right code is refused too, and 2FA stays on (rateLimit ${String(rateLimit)})`, async () => {
      const { config } = twoFactorApp(rateLimit === false ? { rateLimit: false } : {})
      const { secret, backupCodes } = await enroll(config)
      const site = await settingsServer(config)
      const mallory = await stolenSession(site, backupCodes)
      // The attack: 400 guesses, one after the other.
      const results: string[] = []
      for (const code of wrongCodes(secret, 400)) results.push(await site.post(mallory, "disable", code))
      expect(tally(results)).toEqual({ TwoFactorCodeInvalid: 10, RateLimited: 390 })
      expect(results.slice(0, 10).every((r) => r === "TwoFactorCodeInvalid")).toBe(true)
      // Had he guessed it now, it would not be judged.
      expect(await site.post(mallory, "disable", totpCode(secret))).toBe("RateLimited")
      expect(await site.post(mallory, "disable", backupCodes[0]!)).toBe("RateLimited")
      expect((await getTwoFactorStatus(await steppedUp(config, ADA_ID), config)).enabled).toBe(true)
      expect((await getTwoFactorStatus(await steppedUp(config, ADA_ID), config)).backupCodesLeft).toBe(9)
    }, 60_000)
  }

  it("400 wrong codes at once: at most 10 are judged, none turns 2FA off, and the right code after them is refused", async () => {
    const { config } = twoFactorApp()
    const { secret, backupCodes } = await enroll(config)
    const site = await settingsServer(config)
    const mallory = await stolenSession(site, backupCodes)
    const results = await Promise.all(wrongCodes(secret, 400).map((code) => site.post(mallory, "disable", code)))
    expect(results.filter((r) => r === "TwoFactorCodeInvalid").length).toBeLessThanOrEqual(10)
    expect(results.filter((r) => r === "RateLimited").length).toBeGreaterThanOrEqual(390)
    expect(results).not.toContain("ok")
    expect(await site.post(mallory, "disable", totpCode(secret))).toBe("RateLimited")
    expect((await getTwoFactorStatus(await steppedUp(config, ADA_ID), config)).enabled).toBe(true)
  }, 60_000)

  it("spreading the guesses over two instances on one store does not double them", async () => {
    const adapter = MemoryAdapter()
    const a = twoFactorApp({}, adapter)
    const b = twoFactorApp({}, adapter)
    const { secret, backupCodes } = await enroll(a.config)
    const siteA = await settingsServer(a.config)
    const siteB = await settingsServer(b.config)
    const mallory = await stolenSession(siteA, backupCodes)
    const onB = siteB.browser()
    for (const [name, cookie] of mallory.jar) onB.jar.set(name, cookie)
    const results: string[] = []
    for (const [i, code] of wrongCodes(secret, 40).entries()) results.push(await (i % 2 ? siteB.post(onB, "disable", code) : siteA.post(mallory, "disable", code)))
    expect(tally(results)).toEqual({ TwoFactorCodeInvalid: 10, RateLimited: 30 })
    expect(await siteB.post(onB, "disable", totpCode(secret))).toBe("RateLimited")
    expect((await getTwoFactorStatus(await steppedUp(a.config, ADA_ID), a.config)).enabled).toBe(true)
  }, 60_000)

  it("the lock holds for the sign-in step too: the owner's right code is refused there until the window ends", async () => {
    const { config } = twoFactorApp()
    const { secret, backupCodes } = await enroll(config)
    const site = await settingsServer(config)
    const mallory = await stolenSession(site, backupCodes)
    for (const code of wrongCodes(secret, 11)) await site.post(mallory, "disable", code)
    const owner = site.browser()
    await firstFactor(owner)
    const answer = await secondFactor(owner, totpCode(secret))
    expect(answer.headers.get("location")).toContain("error=RateLimited")
    expect(owner.sessionCookie()).toBeUndefined()
  }, 60_000)
})

describe("an adapter without a lock (as the Xata adapter)", () => {
  it("still caps the guesses, in this process: 10 judged of 100, then the right code refused", async () => {
    const { acquireLock: _a, releaseLock: _r, ...withoutLock } = MemoryAdapter()
    const { config } = twoFactorApp({}, withoutLock)
    const { secret, backupCodes } = await enroll(config)
    const site = await settingsServer(config)
    const mallory = await stolenSession(site, backupCodes)
    const results: string[] = []
    for (const code of wrongCodes(secret, 100)) results.push(await site.post(mallory, "disable", code))
    expect(tally(results)).toEqual({ TwoFactorCodeInvalid: 10, RateLimited: 90 })
    expect(await site.post(mallory, "disable", totpCode(secret))).toBe("RateLimited")
    expect((await getTwoFactorStatus(await steppedUp(config, ADA_ID), config)).enabled).toBe(true)
  }, 60_000)
})

describe("guessing the code that mints new backup codes, with a stolen session", () => {
  it("past ten wrong codes regenerating is refused unjudged, the right code too, and the old codes stay", async () => {
    const { config } = twoFactorApp()
    const { secret, backupCodes } = await enroll(config)
    const site = await settingsServer(config)
    const mallory = await stolenSession(site, backupCodes)
    const results: string[] = []
    for (const code of wrongCodes(secret, 100)) results.push(await site.post(mallory, "regenerate", code))
    expect(tally(results)).toEqual({ TwoFactorCodeInvalid: 10, RateLimited: 90 })
    expect(await site.post(mallory, "regenerate", totpCode(secret))).toBe("RateLimited")
    expect((await getTwoFactorStatus(await steppedUp(config, ADA_ID), config)).backupCodesLeft).toBe(9)
  }, 60_000)
})

describe("guessing the code that confirms an enrolment", () => {
  it("past ten wrong codes confirming is refused unjudged, the right code too, and the enrolment stays pending", async () => {
    const { config } = twoFactorApp()
    const site = await settingsServer(config)
    // Ada's session (no 2FA yet) is stolen while an enrolment is pending.
    const ada = site.browser()
    await firstFactor(ada)
    const { secret } = await startTwoFactor({ ...(await steppedUp(config, ADA_ID)), account: "ada@example.com" }, config)
    const results: string[] = []
    for (const code of wrongCodes(secret, 100)) results.push(await site.post(ada, "confirm", code))
    expect(tally(results)).toEqual({ TwoFactorCodeInvalid: 10, RateLimited: 90 })
    expect(await site.post(ada, "confirm", totpCode(secret))).toBe("RateLimited")
    expect(await getTwoFactorStatus(await steppedUp(config, ADA_ID), config)).toMatchObject({ enabled: false, pending: true })
  }, 60_000)
})

describe("the owner's own use", () => {
  it("right codes do not count: eleven disable-and-enrol rounds in a row all pass", async () => {
    const { config } = twoFactorApp()
    for (let round = 0; round < 11; round++) {
      const { secret } = await enroll(config)
      await disableTwoFactor({ ...(await steppedUp(config, ADA_ID)), code: totpCode(secret) }, config)
    }
    expect((await getTwoFactorStatus(await steppedUp(config, ADA_ID), config)).enabled).toBe(false)
  })

  it("a lock on one user leaves another user's codes alone", async () => {
    const adapter: Adapter = MemoryAdapter()
    const { config } = twoFactorApp({}, adapter)
    const { secret } = await enroll(config)
    for (const code of wrongCodes(secret, 11)) await disableTwoFactor({ ...(await steppedUp(config, ADA_ID)), code }, config).catch(() => {})
    await adapter.createUser!({ id: "user-grace", name: "Grace", email: "grace@example.com", emailVerified: null })
    const grace = await enroll(config, "user-grace")
    await disableTwoFactor({ ...(await steppedUp(config, "user-grace")), code: totpCode(grace.secret) }, config)
    expect((await getTwoFactorStatus(await steppedUp(config, "user-grace"), config)).enabled).toBe(false)
  })
})
