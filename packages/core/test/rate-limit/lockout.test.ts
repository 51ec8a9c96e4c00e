/**
 * Checklist T53: failed credentials attempts per identifier lock the identifier, and the
 * lockout looks the same whoever asks — known or unknown user, right or wrong password,
 * form post or fetch client.
 */
import { describe, expect, it } from "vitest"
import { ada } from "../helpers.js"
import { attempt, controllableStore, lockoutApp, wrong } from "./support.js"

describe("five wrong passwords lock the identifier", () => {
  it("answers the first five with CredentialsSignin and the sixth with RateLimited, without calling authorize", async () => {
    const { browser, calls } = lockoutApp()
    const b = browser()
    for (let i = 0; i < 5; i++) expect((await attempt(b, wrong)).error).toBe("CredentialsSignin")
    const refused = await attempt(b, wrong)
    expect(refused.status).toBe(302)
    expect(refused.error).toBe("RateLimited")
    expect(new URL(refused.location!).pathname).toBe("/auth/signin")
    expect(Number(refused.retryAfter)).toBeGreaterThan(0)
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(15 * 60)
    expect(calls.authorize).toBe(5)
  })

  it("refuses the right password during the lockout exactly like a wrong one", async () => {
    const { browser, calls } = lockoutApp()
    const b = browser()
    for (let i = 0; i < 6; i++) await attempt(b, wrong)
    const right = await attempt(b, ada)
    const wrongAgain = await attempt(b, wrong)
    expect(right.error).toBe("RateLimited")
    expect(right.status).toBe(wrongAgain.status)
    expect(right.location).toBe(wrongAgain.location)
    expect(b.sessionCookie()).toBeUndefined()
    expect(calls.authorize).toBe(5)
  })

  it("answers fetch clients with 429, Retry-After and a JSON body naming RateLimited", async () => {
    const { browser } = lockoutApp()
    const b = browser()
    for (let i = 0; i < 5; i++) await attempt(b, wrong, { json: true })
    const refused = await attempt(b, wrong, { json: true })
    expect(refused.status).toBe(429)
    expect(Number(refused.retryAfter)).toBeGreaterThan(0)
    const body = (await refused.response.json()) as { error: string; url: string }
    expect(body.error).toBe("RateLimited")
    expect(new URL(body.url).searchParams.get("error")).toBe("RateLimited")
  })

  it("shows the sign-in page's message for error=RateLimited", async () => {
    const { browser } = lockoutApp()
    const b = browser()
    const page = await b.request("/auth/signin?error=RateLimited")
    expect(await page.text()).toContain("Too many sign-in attempts")
  })

  it("counts the identifier normalised: case, spaces and compatibility forms share one counter", async () => {
    const { browser } = lockoutApp()
    const b = browser()
    for (const username of ["ada", "ADA", " Ada ", "ａｄａ", "aDa"]) await attempt(b, { username, password: "wrong" })
    expect((await attempt(b, { username: "ada", password: "wrong" })).error).toBe("RateLimited")
  })

  it("fires the rateLimited event with the action, the limit and the identifier", async () => {
    const { browser, events } = lockoutApp()
    const b = browser("203.0.113.9")
    for (let i = 0; i < 6; i++) await attempt(b, wrong)
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ action: "credentials", limit: "lockout", identifier: "ada", address: "203.0.113.9" })
    expect(events[0]!.retryAfter).toBeGreaterThan(0)
  })
})

describe("a right password before the limit", () => {
  it("lets the owner sign in after four mistakes without counting against them; the mistakes stay for their window", async () => {
    const { browser } = lockoutApp()
    const b = browser()
    for (let i = 0; i < 4; i++) await attempt(b, wrong)
    expect((await attempt(b, ada)).error).toBeNull()
    // The success gave back its own attempt only: one more mistake is allowed, the next is refused.
    const other = browser()
    expect((await attempt(other, wrong)).error).toBe("CredentialsSignin")
    expect((await attempt(other, wrong)).error).toBe("RateLimited")
  })
})

describe("known and unknown identifiers are indistinguishable", () => {
  it("gives the same statuses, headers and bodies for an account that exists and one that does not", async () => {
    const answers = async (username: string, json: boolean) => {
      const b = lockoutApp().browser()
      const out = []
      for (let i = 0; i < 7; i++) {
        const r = await attempt(b, { username, password: "wrong" }, { json })
        const body = await r.response.text()
        out.push({
          status: r.status,
          error: r.error ?? null,
          headers: [...r.response.headers.keys()].filter((h) => h !== "date").sort(),
          body: body.replaceAll(username, "<id>"),
          retryAfter: r.retryAfter === null ? null : "set",
        })
      }
      return out
    }
    expect(await answers("nobody-here", false)).toEqual(await answers("ada", false))
    expect(await answers("nobody-else", true)).toEqual(await answers("ada", true))
  })
})

describe("repeated lockouts back off exponentially", () => {
  it("locks for twice the window after the second lockout within a day, capped at maxLockout", async () => {
    const control = controllableStore()
    const window = 60
    const { browser } = lockoutApp({ store: control.store, perIdentifier: { credentials: { max: 2, window, maxLockout: 3 * window } } })
    const b = browser()
    const lockOnce = async () => {
      for (let i = 0; i < 2; i++) expect((await attempt(b, wrong)).error).toBe("CredentialsSignin")
      return attempt(b, wrong)
    }
    const first = await lockOnce()
    expect(first.error).toBe("RateLimited")
    expect(Number(first.retryAfter)).toBeLessThanOrEqual(window)
    // The window ends (the attempts counter is forgotten); the strikes are remembered.
    await control.expire("credentials:i:")
    const second = await lockOnce()
    expect(Number(second.retryAfter)).toBeGreaterThan(window)
    expect(Number(second.retryAfter)).toBeLessThanOrEqual(2 * window)
    // While the lock holds, even a right password is refused with the lock's time.
    await control.expire("credentials:i:")
    expect((await attempt(b, ada)).error).toBe("RateLimited")
    await control.expire("credentials:lock:")
    const third = await lockOnce()
    expect(Number(third.retryAfter)).toBeGreaterThan(2 * window)
    expect(Number(third.retryAfter)).toBeLessThanOrEqual(3 * window)
  })
})
