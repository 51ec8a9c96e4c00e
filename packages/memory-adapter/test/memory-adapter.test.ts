import { describe, expect, it } from "vitest"
import { makeUser, runAdapterConformance, runSessionRegistryConformance } from "@portcullis/adapter-test"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import type { AdapterUser } from "@portcullis/core/adapters"

runAdapterConformance("MemoryAdapter", { adapter: () => MemoryAdapter(), tokenRefresh: true })

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
