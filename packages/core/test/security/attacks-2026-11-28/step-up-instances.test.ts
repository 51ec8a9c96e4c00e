/**
 * Step-up across instances, attacked: JWT sessions with a session registry, two instances
 * sharing the adapter, the registry and the step-up store — the set-up docs/step-up.md asks
 * for. Each instance trusts a registry confirmation for `session.revocationCheckInterval`
 * (60 s by default), and the step-up mark of a registered session is not deleted at sign-out
 * ("gone with the sign-out, its mark with it": the registry entry goes, the mark stays).
 *
 * Malware copies Ada's cookie just after she signs in (the mark is fresh: shared, as
 * documented). She notices and signs out, which ends the session in the registry. The thief
 * keeps using the copy on the other instance, which confirmed it a moment earlier.
 */
import { afterEach, describe, expect, it } from "vitest"
import { memoryRateLimitStore } from "@portcullis/core/rate-limit"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import type { Browser } from "../../helpers.js"
import { act, copyOf, signIn, stepUpApp, type StepUpApp } from "../../step-up/app.js"

const apps: StepUpApp[] = []
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()))
})

/** The same cookies, talking to another instance. */
function on(app: StepUpApp, browser: Browser): Browser {
  const moved = app.browser()
  for (const [name, cookie] of browser.jar) moved.jar.set(name, { ...cookie })
  return moved
}

async function twoInstances() {
  const adapter = MemoryAdapter()
  const shared = { session: { strategy: "jwt" as const, registry: new MemorySessionRegistry() }, stepUp: { store: memoryRateLimitStore() } }
  const one = await stepUpApp(shared, adapter)
  const two = await stepUpApp(shared, adapter, false)
  apps.push(one, two)
  return { one, two }
}

describe("Ada signs out on one instance; the thief's copy of her fresh session is on the other", () => {
  it("the copy can take no sensitive action there once she has signed out", async () => {
    const { one, two } = await twoInstances()
    const ada = one.browser()
    await signIn(ada)
    const thief = on(two, copyOf(ada))
    // The thief's first use of the copy: instance two confirms the session with the registry.
    expect((await act(thief, "/account/step-up")).body).toMatchObject({ signedIn: true, fresh: true })

    // Ada signs out on instance one: her session leaves the registry.
    expect((await ada.signOut()).status).toBe(302)
    expect((await act(on(one, thief), "/account/delete")).status).toBe(401)

    // On instance two, within the revocation check interval, the copy still acts as her.
    expect((await act(thief, "/account/delete")).status).toBe(401)
    expect((await act(thief, "/account/2fa/start")).status).toBe(401)
  })

  it("the copy of her laptop's session can take no sensitive action once she ends it from her phone on the other instance", async () => {
    const { one, two } = await twoInstances()
    const laptop = one.browser()
    await signIn(laptop)
    const thief = on(two, copyOf(laptop))
    expect((await act(thief, "/account/step-up")).body).toMatchObject({ signedIn: true, fresh: true })

    const phone = one.browser()
    await signIn(phone)
    expect(await act(phone, "/account/sessions/revoke-others")).toEqual({ status: 200, body: { revoked: 1 } })

    expect((await act(thief, "/account/delete")).status).toBe(401)
    expect((await act(thief, "/account/sessions/everywhere")).status).toBe(401)
    // Her phone, on either instance, still can.
    expect((await act(on(two, phone), "/account/delete")).status).toBe(200)
  })
})
