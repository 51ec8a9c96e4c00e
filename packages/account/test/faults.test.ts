/**
 * The adapter down or slow: every route answers 503 with a sentence (never a stack or the
 * driver's message), the page the themed card, and nothing is half-written — no mail goes
 * out for a token that was not stored, no profile half-saved.
 */
import { describe, expect, it } from "vitest"
import type { Adapter } from "@portcullis/core/adapters"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { testbed } from "./support.js"

/** The memory adapter behind a switch: `down` fails `methods` (all when empty), `slow` delays them past the timeout. */
function faulty() {
  const inner = MemoryAdapter()
  const state = { down: false, slow: false, methods: new Set<string>() }
  const adapter = new Proxy(inner, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver)
      if (typeof value !== "function") return value
      return async (...args: unknown[]) => {
        const hit = state.methods.size === 0 || state.methods.has(String(name))
        if (hit && state.down) throw new Error("connect ECONNREFUSED 10.0.0.5:5432 (users table)")
        if (hit && state.slow) await new Promise((r) => setTimeout(r, 600))
        return (value as (...a: unknown[]) => unknown).apply(target, args)
      }
    },
  }) as Adapter
  return { adapter, state, inner }
}

describe("the adapter down", () => {
  it("answers the page with the themed 503 card and JSON with a sentence", async () => {
    const { adapter, state } = faulty()
    const bed = testbed({ adapter })
    const ada = await bed.person("ada")
    state.down = true
    const page = await ada.page()
    expect(page.status).toBe(503)
    expect(page.html).toContain("<html")
    expect(page.html).not.toContain("ECONNREFUSED")
    const json = await ada.post("profile", { name: "Ada" })
    expect(json.status).toBe(503)
    expect(json.body.message).toMatch(/unavailable/)
    expect(JSON.stringify(json.body)).not.toContain("ECONNREFUSED")
    expect(json.response.headers.get("retry-after")).toBeTruthy()
  })

  it("stores no email-change token and mails nothing when the token cannot be stored", async () => {
    const { adapter, state } = faulty()
    const bed = testbed({ adapter })
    const ada = await bed.person("ada")
    state.methods.add("createVerificationToken")
    state.down = true
    expect((await ada.post("email", { email: "countess@example.com" })).status).toBe(503)
    expect(bed.mail.sent).toEqual([])
  })

  it("leaves the profile as it was when the write fails", async () => {
    const { adapter, state, inner } = faulty()
    const bed = testbed({ adapter })
    const ada = await bed.person("ada")
    state.methods.add("updateUser")
    state.down = true
    expect((await ada.form("profile", { name: "Half", image: "https://example.com/x.png" })).status).toBe(503)
    expect(await inner.getUser!(ada.id)).toMatchObject({ name: null, image: null })
    expect(bed.events()).toEqual([])
  })

  it("keeps the passkey's account row when its removal fails", async () => {
    const { adapter, state, inner } = faulty()
    const bed = testbed({ adapter })
    const ada = await bed.person("ada")
    await inner.linkAccount!({ userId: ada.id, type: "webauthn", provider: "passkey", providerAccountId: "k1" })
    await inner.createAuthenticator!({ credentialID: "k1", userId: ada.id, providerAccountId: "k1", counter: 0, credentialBackedUp: false, credentialPublicKey: "AAAA", credentialDeviceType: "singleDevice" })
    state.methods.add("deleteAuthenticator")
    state.down = true
    expect((await ada.post("passkeys/k1/remove")).status).toBe(503)
    expect(await inner.getAuthenticator!("k1")).not.toBeNull()
    expect(await inner.getAccount!("k1", "passkey")).not.toBeNull()
  })
})

describe("the adapter slow", () => {
  it("is bounded by adapterTimeout: 503, not a hung request", async () => {
    const { adapter, state } = faulty()
    const bed = testbed({ adapter, config: { adapterTimeout: 200 } })
    const ada = await bed.person("ada")
    state.slow = true
    const started = Date.now()
    const answer = await ada.post("profile", { name: "Ada" })
    expect(answer.status).toBe(503)
    expect(Date.now() - started).toBeLessThan(3000)
  })
})
