/**
 * Step-up across instances and through store faults: a mark proven on one instance is
 * honoured by another on the same store (and only there), and a step-up store that fails or
 * hangs refuses the sensitive action (503) — never lets it through — while sign-ins go on.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { memoryRateLimitStore, type RateLimitStore } from "@portcullis/core/rate-limit"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser } from "../helpers.js"
import { act, ada, reauthenticate, signIn, stepUpApp, type StepUpApp } from "./app.js"

const MINUTE = 60_000
const apps: StepUpApp[] = []

afterEach(async () => {
  vi.useRealTimers()
  await Promise.all(apps.splice(0).map((a) => a.close()))
})

async function started(...args: Parameters<typeof stepUpApp>): Promise<StepUpApp> {
  const app = await stepUpApp(...args)
  apps.push(app)
  return app
}

function later(ms: number) {
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() })
  vi.setSystemTime(Date.now() + ms)
}

/** The same browser (its cookies) talking to another instance of the app. */
function on(app: StepUpApp, browser: Browser): Browser {
  const moved = app.browser()
  for (const [name, cookie] of browser.jar) moved.jar.set(name, { ...cookie })
  return moved
}

describe("two instances on one store", () => {
  it("honour on the second instance a step-up proven on the first", async () => {
    const adapter = MemoryAdapter()
    const store = memoryRateLimitStore()
    const one = await started({ stepUp: { store } }, adapter)
    const two = await started({ stepUp: { store } }, adapter, false)
    const browser = one.browser()
    await signIn(browser)
    later(11 * MINUTE)
    expect((await act(on(two, browser), "/account/2fa/start")).status).toBe(403)
    expect((await reauthenticate(browser, ada.password)).error).toBeNull()
    expect((await act(on(two, browser), "/account/2fa/start")).status).toBe(200)
  })

  it("do not share marks they keep in their own memory (why stepUp.store must be shared)", async () => {
    const adapter = MemoryAdapter()
    const one = await started({}, adapter)
    const two = await started({}, adapter, false)
    const browser = one.browser()
    await signIn(browser)
    later(11 * MINUTE)
    await reauthenticate(browser, ada.password)
    expect((await act(browser, "/account/delete")).status).toBe(200)
    expect(await act(on(two, browser), "/account/delete")).toEqual({ status: 403, body: { error: "StepUpRequired" } })
  })
})

/** A store whose every call fails (`down`) or never answers (`hang`), switchable mid-test. */
function faultyStore() {
  const inner = memoryRateLimitStore()
  const state = { mode: "up" as "up" | "down" | "hang" }
  const call = <T>(work: () => Promise<T>): Promise<T> =>
    state.mode === "up" ? work() : state.mode === "down" ? Promise.reject(new Error("ECONNREFUSED")) : new Promise<T>(() => {})
  const store: RateLimitStore = {
    hit: (key, window, points) => call(() => inner.hit(key, window, points)),
    peek: (key) => call(() => inner.peek(key)),
    reset: (key) => call(() => inner.reset(key)),
  }
  return { store, state }
}

describe("a step-up store that fails", () => {
  it("refuses every gated action with 503 while it is down, even for a session stepped up a moment before", async () => {
    const { store, state } = faultyStore()
    const app = await started({ stepUp: { store } })
    const browser = app.browser()
    await signIn(browser)
    state.mode = "down"
    for (const path of ["/account/2fa/start", "/account/sessions/revoke-others", "/account/sessions/everywhere", "/account/delete"]) {
      expect(await act(browser, path), path).toEqual({ status: 503, body: { error: "ServiceUnavailable" } })
    }
    expect(await app.adapter.getTwoFactor!(app.userId)).toBeNull()
    state.mode = "up"
    expect((await act(browser, "/account/delete")).status).toBe(200)
  })

  it("refuses with 503 when it does not answer within stepUp.timeout", async () => {
    const { store, state } = faultyStore()
    const app = await started({ stepUp: { store, timeout: 100 } })
    const browser = app.browser()
    await signIn(browser)
    state.mode = "hang"
    const started_ = performance.now()
    expect(await act(browser, "/account/2fa/start")).toEqual({ status: 503, body: { error: "ServiceUnavailable" } })
    expect(performance.now() - started_).toBeLessThan(2_000)
    expect(await app.adapter.getTwoFactor!(app.userId)).toBeNull()
  })

  it("does not stop a sign-in (its session simply is not stepped up), nor mark one on a re-authentication", async () => {
    const { store, state } = faultyStore()
    const app = await started({ stepUp: { store } })
    state.mode = "down"
    const browser = app.browser()
    await signIn(browser)
    expect((await browser.session())?.user?.email).toBe(ada.email)
    const { location, error } = await reauthenticate(browser, ada.password)
    expect(new URL(location!).pathname).toBe("/auth/error")
    expect(error).toBe("ServiceUnavailable")
    state.mode = "up"
    expect(await act(browser, "/account/delete")).toEqual({ status: 403, body: { error: "StepUpRequired" } })
  })
})
