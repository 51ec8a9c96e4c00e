/**
 * Issue 32, attacker's pass: a two-factor enrollment that is started and not yet confirmed
 * keeps its secret (so the QR code survives a wrong code). That secret IS the second factor
 * once the owner confirms it: whoever reads it can make every code after. The page shows it
 * only to a recently re-authenticated session; the JSON state (`GET account/state`, the
 * React and Svelte components' source, and the `state()` server function) must hold it to
 * the same bar, or a stolen cookie whose owner's re-authentication is long over reads it.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { later, testbed } from "../support.js"

afterEach(() => vi.useRealTimers())

const MINUTE = 60_000

describe("a pending two-factor secret and a stolen cookie", () => {
  it("the state gives a session without a recent re-authentication no secret, while the owner's fresh session sees it", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const started = await ada.post("two-factor/start")
    expect(started.status).toBe(200)
    const secret = started.body.manualKey as string
    expect(secret).toMatch(/\w{4}/)
    // The owner, fresh: the QR and key are there to finish enrolling.
    const fresh = await ada.get("state")
    expect(fresh.body.twoFactor).toMatchObject({ pending: true, enrollment: { manualKey: secret } })

    later(11 * MINUTE)
    const thief = ada.stolen()
    const stolen = await thief.get("state")
    expect(stolen.status).toBe(200)
    expect(stolen.body.twoFactor.pending).toBe(true)
    expect(stolen.body.twoFactor.enrollment).toBeNull()
    expect(JSON.stringify(stolen.body)).not.toContain(secret.replace(/ /g, ""))
    expect(JSON.stringify(stolen.body)).not.toContain("otpauth://")
    // The page, likewise (it already hid it; kept here so the two cannot drift apart).
    const page = await thief.page()
    expect(page.html).not.toContain(secret)
    expect(page.html).not.toContain("otpauth")
  })
})
