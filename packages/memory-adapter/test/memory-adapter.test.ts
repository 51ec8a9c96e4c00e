import { describe, expect, it } from "vitest"
import { makeUser, runAdapterConformance, runSessionRegistryConformance } from "@portcullis/adapter-test"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import type { AdapterUser } from "@portcullis/core/adapters"

runAdapterConformance("MemoryAdapter", { adapter: () => MemoryAdapter(), tokenRefresh: true, twoFactor: true, passwords: true, auditTrail: true })

describe("MemoryAdapter isolation", () => {
  it("does not let callers mutate stored records through inputs or results", async () => {
    const adapter = MemoryAdapter()
    const input = makeUser()
    const created = await adapter.createUser!(input)
    input.name = "changed via input"
    created.name = "changed via result"
    ;(created.emailVerified as Date).setFullYear(1999)
    const found = (await adapter.getUser!(input.id)) as AdapterUser
    expect(found.name).toBe("Ada Lovelace")
    expect(found.emailVerified?.getUTCFullYear()).toBe(2024)
  })

  it("hands a session check copies of the session and user, Dates and nested values included", async () => {
    const adapter = MemoryAdapter()
    const user = await adapter.createUser!({ ...makeUser(), roles: ["admin"], prefs: { theme: "dark" } } as AdapterUser)
    const expires = new Date(Date.now() + 60_000)
    await adapter.createSession!({ sessionToken: "t", userId: user.id, expires })
    const first = await adapter.getSessionAndUser!("t")
    expect(first).toEqual({ session: { sessionToken: "t", userId: user.id, expires }, user })
    first!.session.expires.setFullYear(1999)
    first!.user.name = "changed"
    ;(first!.user.emailVerified as Date).setFullYear(1999)
    ;((first!.user as unknown as { roles: string[] }).roles).push("root")
    ;((first!.user as unknown as { prefs: { theme: string } }).prefs).theme = "light"
    const again = await adapter.getSessionAndUser!("t")
    expect(again!.session.expires.getTime()).toBe(expires.getTime())
    expect(again!.user).toEqual(user)
    expect(again!.user.emailVerified).toBeInstanceOf(Date)
    expect(again!.session.expires).not.toBe(first!.session.expires)
  })

  it("keeps an audit record as written: its details, a nested Date and deeper values copied, not shared", async () => {
    const adapter = MemoryAdapter()
    const at = new Date("2026-11-29T10:00:00Z")
    const details = { clientId: "web", when: new Date("2026-11-29T09:00:00Z"), deep: { list: [1, 2] } }
    const record = { id: "a1", type: "oidc.tokenIssued", outcome: "success", at, details } as unknown as Parameters<NonNullable<typeof adapter.createAuditRecord>>[0]
    await adapter.createAuditRecord!(record)
    details.clientId = "changed"
    details.when.setFullYear(1999)
    details.deep.list.push(3)
    at.setFullYear(1999)
    const [stored] = (await adapter.listAuditRecords!({})).records
    expect(stored!.at.getUTCFullYear()).toBe(2026)
    expect(stored!.details).toEqual({ clientId: "web", when: new Date("2026-11-29T09:00:00Z"), deep: { list: [1, 2] } })
    expect((stored!.details as { when: Date }).when).toBeInstanceOf(Date)
  })

  it("gives each adapter its own store", async () => {
    const user = makeUser()
    await MemoryAdapter().createUser!(user)
    expect(await MemoryAdapter().getUser!(user.id)).toBeNull()
  })
})

describe("MemoryAdapter failures are rejected promises", () => {
  it("a duplicate email, an unknown user or authenticator reject instead of throwing synchronously", async () => {
    const adapter = MemoryAdapter()
    const user = await adapter.createUser!(makeUser())
    const calls = [
      () => adapter.createUser!(makeUser({ email: user.email })),
      () => adapter.updateUser!({ id: "missing", name: "x" }),
      () => adapter.updateAuthenticatorCounter!("missing", 1),
    ]
    for (const call of calls) {
      let result: unknown
      expect(() => (result = call())).not.toThrow()
      await expect(result).rejects.toThrow()
    }
  })
})

const registry = new MemorySessionRegistry()
runSessionRegistryConformance("MemorySessionRegistry", { registry: () => registry })
