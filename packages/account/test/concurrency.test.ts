/**
 * Fifty at once: one email-change token confirmed fifty times (exactly one wins), revoking
 * the other sessions while fifty new sign-ins land (the old ones are gone; each new one is
 * either listed and valid or gone, never listed and dead or valid and unlisted), and fifty
 * removals racing for the last two ways in (one way in always remains).
 */
import { describe, expect, it } from "vitest"
import { plantPasskey, testbed } from "./support.js"

describe("fifty confirmations of one email-change token", () => {
  it.each(["jwt", "database"] as const)("exactly one wins (%s sessions)", async (strategy) => {
    const bed = testbed({ strategy })
    const ada = await bed.person("ada")
    await ada.post("email", { email: "countess@example.com" })
    const link = bed.linkFor("countess@example.com")
    const answers = await Promise.all(Array.from({ length: 50 }, () => ada.post("email/confirm", link)))
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1)
    expect(answers.filter((a) => a.status === 410)).toHaveLength(49)
    expect(await bed.adapter.getUser!(ada.id)).toMatchObject({ email: "countess@example.com" })
    expect(bed.events().filter((e) => e === "emailChanged/success")).toHaveLength(1)
  })
})

describe("revoking the other sessions while fifty new sign-ins land", () => {
  it.each(["jwt", "database"] as const)("leaves no old session, and each new one consistent (%s sessions)", async (strategy) => {
    const bed = testbed({ strategy })
    const ada = await bed.person("ada")
    const old = await Promise.all(Array.from({ length: 5 }, () => ada.anotherSession()))
    const fresh = Array.from({ length: 50 }, () => new (Object.getPrototypeOf(ada).constructor)(ada.id, ada.email, bed.browser()) as typeof ada)
    const [revoked] = await Promise.all([ada.post("sessions/revoke-others"), ...fresh.map((f) => f.signIn())])
    expect(revoked.status).toBe(200)
    for (const o of old) expect((await o.get("state")).status).toBe(401)
    const listed = new Set<string>(((await ada.get("state")).body.sessions as Array<{ id: string }>).map((s) => s.id))
    let alive = 0
    for (const f of fresh) {
      const state = await f.get("state")
      if (state.status === 200) {
        alive++
        const own = (state.body.sessions as Array<{ id: string; current: boolean }>).find((s) => s.current)!
        expect(listed.has(own.id)).toBe(true)
      } else {
        expect(state.status).toBe(401)
      }
    }
    // The current session and every surviving new one, nothing else.
    expect(listed.size).toBe(alive + 1)
    expect((await ada.get("state")).status).toBe(200)
  })
})

describe("fifty removals racing for the last two ways in", () => {
  it("leave one way in (the adapter's lock serializes the count and the removal)", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await plantPasskey(bed.adapter, ada.id, "k1")
    await plantPasskey(bed.adapter, ada.id, "k2")
    await bed.adapter.setUserPassword!(ada.id, "")
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => ada.post(`passkeys/k${(i % 2) + 1}/remove`)))
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1)
    expect(answers.every((a) => [200, 404, 409].includes(a.status))).toBe(true)
    expect(await bed.adapter.listAuthenticatorsByUserId!(ada.id)).toHaveLength(1)
  })
})
