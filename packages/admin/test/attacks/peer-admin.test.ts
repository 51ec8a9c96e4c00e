/**
 * Issue 32, attacker's pass: one admin against another. A ban of an admin is refused
 * (`target-is-admin`) and the user page offers an admin no ban, session or recovery button
 * (docs/admin.md) — but the routes and server functions behind those buttons are reachable
 * with a crafted request. The pass found ending another admin's sessions worked, and
 * resetting their second factor took the same path: one admin (or a thief with one
 * stepped-up admin session) could strip a peer's second factor and sign them out. Admins are
 * peers now (`refusePeer` in operations.ts): a compromised admin is dealt with by removing
 * their admin role first, then acting as on anyone.
 */
import { describe, expect, it } from "vitest"
import { testbed } from "../support.js"

describe("an admin acting on another admin through the routes the page hides", () => {
  it("is refused the ban (the control)", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await bed.person("root", { role: "admin" })
    expect((await ada.post("users/user-root/ban", { reason: "x" })).body.error).toBe("target-is-admin")
  })

  // Found by the attacker's pass (200 and root signed out); admins are now peers (operations.ts).
  it("is refused ending their sessions, as the ban is (target-is-admin), and they stay signed in", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const root = await bed.person("root", { role: "admin" })
    const json = await ada.post("users/user-root/revoke", { reason: "x" })
    expect(json.status).toBe(403)
    expect(json.body.error).toBe("target-is-admin")
    await expect(ada.server().revokeSessions("user-root")).rejects.toMatchObject({ code: "target-is-admin" })
    expect((await root.session())?.user?.email).toBe("root@example.com")
  })

  it("is refused resetting their second factor (target-is-admin)", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await bed.person("root", { role: "admin" })
    const json = await ada.post("users/user-root/reset-two-factor", { reason: "lost phone" })
    expect(json.status).toBe(403)
    expect(json.body.error).toBe("target-is-admin")
    await expect(ada.server().resetTwoFactor("user-root", "lost phone")).rejects.toMatchObject({ code: "target-is-admin" })
  })
})
