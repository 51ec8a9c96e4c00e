/**
 * The ban store down or slow: the console answers 503 with a sentence (no driver message),
 * sign-in is refused rather than let through (the gate fails closed), and a ban never
 * half-applies — the ban is stored before the sessions are ended, so a failed store leaves
 * the sessions untouched, and a failed revocation leaves the ban in force (repeat it).
 */
import { describe, expect, it } from "vitest"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { MemoryBanStore } from "@portcullis/admin/memory"
import { redirectOf, testbed } from "./support.js"

class FlakyBanStore extends MemoryBanStore {
  mode: "ok" | "down" | "slow" = "ok"
  async #trouble() {
    if (this.mode === "down") throw new Error("connect ECONNREFUSED 10.0.0.9:5432 (bans table)")
    if (this.mode === "slow") await new Promise((resolve) => setTimeout(resolve, 300))
  }
  override async ban(...args: Parameters<MemoryBanStore["ban"]>) {
    await this.#trouble()
    return super.ban(...args)
  }
  override async get(...args: Parameters<MemoryBanStore["get"]>) {
    await this.#trouble()
    return super.get(...args)
  }
  override async many(...args: Parameters<MemoryBanStore["many"]>) {
    await this.#trouble()
    return super.many(...args)
  }
}

describe("the ban store down", () => {
  it("answers 503 with a sentence and no driver message, changes no session, and refuses sign-in (fails closed)", async () => {
    const store = new FlakyBanStore()
    const bed = testbed({ store })
    const ada = await bed.person("ada")
    const bob = await bed.person("bob")
    store.mode = "down"
    const banned = await ada.post("users/user-bob/ban", { reason: "spam" })
    expect(banned.status).toBe(503)
    expect(banned.body).toEqual({ error: "ServiceUnavailable", message: "The service is unavailable; try again shortly" })
    expect(JSON.stringify(banned.body)).not.toContain("ECONNREFUSED")
    expect((await bob.session())?.user?.email).toBe("bob@example.com")
    expect((await ada.get("api/users")).status).toBe(503)
    const signIn = await (await bed.person("carol", { signedIn: false })).signIn()
    expect(redirectOf(signIn).path).not.toBe("/")
    expect(signIn.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token=") && !c.includes("Max-Age=0"))).toBe(false)
    store.mode = "ok"
    expect((await ada.post("users/user-bob/ban", { reason: "spam" })).status).toBe(200)
    expect(await bob.session()).toBeNull()
  })

  it("slower than adapterTimeout: 503, not a hang", async () => {
    const store = new FlakyBanStore()
    const bed = testbed({ store, config: { adapterTimeout: 100 } })
    const ada = await bed.person("ada")
    await bed.person("bob")
    store.mode = "slow"
    const started = Date.now()
    expect((await ada.post("users/user-bob/ban", { reason: "spam" })).status).toBe(503)
    expect(Date.now() - started).toBeLessThan(1000)
  })
})

describe("a revocation that fails after the ban was stored", () => {
  it("answers 503, keeps the ban in force (sign-in refused), audits the failure, and ends the sessions when repeated", async () => {
    const adapter = MemoryAdapter()
    let failDeletes = false
    const flaky = { ...adapter, deleteSession: async (token: string) => (failDeletes ? Promise.reject(new Error("deleteSession timed out")) : adapter.deleteSession!(token)) }
    const bed = testbed({ strategy: "database", adapter: flaky })
    const ada = await bed.person("ada")
    const bob = await bed.person("bob")
    failDeletes = true
    expect((await ada.post("users/user-bob/ban", { reason: "spam" })).status).toBe(503)
    expect(await bed.store.get("user-bob")).not.toBeNull()
    expect(redirectOf(await (await bob.anotherBrowserUnsigned()).signIn()).error).toBe("AccountSuspended")
    expect(bed.events()).toContain("userBanned/failure")
    failDeletes = false
    expect((await ada.post("users/user-bob/ban", { reason: "spam" })).status).toBe(200)
    expect(await bob.session()).toBeNull()
  })
})
