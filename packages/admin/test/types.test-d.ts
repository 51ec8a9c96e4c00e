/**
 * The types an app gets from the admin console: `extensions.admin`'s functions are typed
 * from the configuration, and the options refuse what cannot work. Checked by the compiler
 * (`tsc -p packages/admin/test`, run by `types.test.ts`), never executed.
 */
import { expectTypeOf } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { extensionFunctions } from "@portcullis/core/integration"
import { admin, type Ban, type UserDetails, type UserListPage } from "@portcullis/admin"
import { memoryBanStore } from "@portcullis/admin/memory"

const console = admin({ store: memoryBanStore(), isAdmin: (user) => user.email === "ada@example.com" })
const config = { providers: [], extensions: [console] } satisfies AuthConfig

export async function typed(headers: Headers) {
  const { admin: server } = await extensionFunctions({ origin: "https://app.example", headers }, config)
  expectTypeOf(await server.listUsers({ search: "ada", banned: true })).toEqualTypeOf<UserListPage>()
  expectTypeOf(await server.user("user-1")).toEqualTypeOf<UserDetails>()
  expectTypeOf((await server.ban("user-1", { reason: "spam", duration: 3600 })).ban).toEqualTypeOf<Ban>()
  expectTypeOf(await server.isAdmin()).toEqualTypeOf<boolean>()
  // @ts-expect-error a ban needs a reason
  await server.ban("user-1", { duration: 3600 })
  expectTypeOf((await server.impersonate("user-1")).until).toEqualTypeOf<Date>()
  expectTypeOf((await server.endImpersonation()).restored).toEqualTypeOf<boolean>()
  // @ts-expect-error impersonation names a user
  await server.impersonate()
  // @ts-expect-error no such function
  await server.impersonateAdmin("user-1")
}

// @ts-expect-error a store is required
admin({ isAdmin: () => true })
// The roles are names of roles.
admin({ store: memoryBanStore(), roles: ["admin", "support"] })
