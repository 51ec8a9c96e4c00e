/**
 * The console's options: who is an admin must be said (`isAdmin`, `roles`, or both) — a
 * configuration with neither is refused, since nobody could use the console — and a role
 * in `roleField` or the callback each let an admin in.
 */
import { describe, expect, it } from "vitest"
import { admin } from "@portcullis/admin"
import { memoryBanStore } from "@portcullis/admin/memory"
import { testbed } from "./support.js"

describe("the admin options", () => {
  it("refuses a configuration that names no admin, no store, or malformed roles (InvalidConfig)", () => {
    expect(() => admin({ store: memoryBanStore() })).toThrow(/say who is an admin/)
    expect(() => admin({ isAdmin: () => true } as never)).toThrow(/options.store is required/)
    expect(() => admin({ store: memoryBanStore(), roles: [] })).toThrow(/roles must be a non-empty list/)
    expect(() => admin({ store: memoryBanStore(), roles: [""] })).toThrow(/roles must be a non-empty list/)
    expect(() => admin({ store: memoryBanStore(), isAdmin: "yes" as never })).toThrow(/isAdmin must be a function/)
    expect(() => admin({ store: memoryBanStore(), roles: ["admin"] })).not.toThrow()
  })

  it("lets in a user whose role field holds one of the roles, with a custom field name", async () => {
    const bed = testbed({ extension: { isAdmin: undefined, roles: ["staff"], roleField: "kind" } })
    const staff = await bed.person("sam")
    await bed.adapter.updateUser!({ id: "user-sam", kind: "staff" } as never)
    expect((await staff.get("api/users")).status).toBe(200)
    const ada = await bed.person("ada")
    expect((await ada.get("api/users")).status).toBe(403)
  })

  it("treats only a true answer of isAdmin as yes", async () => {
    const bed = testbed({ extension: { roles: undefined, isAdmin: () => "yes" as never } })
    const ada = await bed.person("ada")
    expect((await ada.get("api/users")).status).toBe(403)
  })
})
