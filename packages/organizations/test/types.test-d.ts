/**
 * The types an app gets from its role definitions (docs/organizations.md, "Types"):
 * permission names inferred, so `can("project:create")` autocompletes and a typo does not
 * compile. Checked by the compiler (`tsc -p packages/organizations/test`, run by
 * `types.test.ts`), never executed.
 */
import { expectTypeOf } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { extensionFunctions } from "@portcullis/core/integration"
import { organizations, type OrganizationsSessionField, type PermissionOf, type RoleOf } from "@portcullis/organizations"
import { memoryOrganizationStore } from "@portcullis/organizations/memory"

const orgs = organizations({
  store: memoryOrganizationStore(),
  roles: { billing: ["invoice:pay", "invoice:read"], admin: ["project:create"] },
})
const config = { providers: [], extensions: [orgs] } satisfies AuthConfig

export async function typed(headers: Headers) {
  const { organizations: server } = await extensionFunctions({ origin: "https://app.example", headers }, config)

  // The app's permissions and the built-in ones are known by name.
  expectTypeOf(server.can).parameter(0).toEqualTypeOf<
    "organization:read" | "organization:update" | "organization:delete" | "member:invite" | "member:remove" | "member:role" | "invoice:pay" | "invoice:read" | "project:create"
  >()
  expectTypeOf(await server.can("project:create")).toEqualTypeOf<boolean>()
  await server.require("invoice:pay", { organizationId: "org-1" })
  // @ts-expect-error a typo in a permission does not compile
  await server.can("project:craete")
  // @ts-expect-error nor a permission no role grants
  await server.require("invoice:refund")

  // Roles: the built-in ones and the app's.
  await server.setRole("org-1", "user-1", "billing")
  await server.invite("org-1", { email: "a@example.com", role: "owner" })
  // @ts-expect-error an unknown role does not compile
  await server.setRole("org-1", "user-1", "emperor")

  const active = await server.active()
  expectTypeOf(active).toEqualTypeOf<{ id: string; name: string; slug: string; role: string } | null>()
}

// The helper types on their own.
type Roles = { readonly support: readonly ["ticket:read"] }
expectTypeOf<PermissionOf<Roles>>().toEqualTypeOf<"organization:read" | "organization:update" | "organization:delete" | "member:invite" | "member:remove" | "member:role" | "ticket:read">()
expectTypeOf<RoleOf<Roles>>().toEqualTypeOf<"owner" | "admin" | "member" | "support">()
expectTypeOf<OrganizationsSessionField["active"]>().toEqualTypeOf<{ id: string; name: string; slug: string; role: string } | null>()

// Without roles: only the built-in permissions.
const plain = organizations({ store: memoryOrganizationStore() })
type PlainServer = NonNullable<ReturnType<NonNullable<typeof plain.server>>>
expectTypeOf<Parameters<PlainServer["can"]>[0]>().toEqualTypeOf<"organization:read" | "organization:update" | "organization:delete" | "member:invite" | "member:remove" | "member:role">()
