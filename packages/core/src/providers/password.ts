/**
 * Password provider: sign in with an email address and a password that Portcullis hashes
 * (argon2id, `@portcullis/core/password`), stores through the adapter and checks for you.
 *
 * Needs an adapter with the password capability — `getUserPassword` and `setUserPassword`
 * besides `createUser`, `getUser` and `getUserByEmail` (the memory adapter has it; the SQL
 * adapter with `passwords: true` after `migrateToLatest`, see docs/passwords.md). Works with
 * JWT and database sessions.
 *
 * Sign-in is `POST {basePath}/callback/password` with `email`, `password` and `csrfToken`
 * (`signIn("password", { email, password })` from the client). A wrong password, an unknown
 * address, an address not yet verified (with `emailVerification: "required"`) and a locked
 * out address all get the same answer: `CredentialsSignin`.
 *
 * @example
 * ```ts
 * import Password from "@portcullis/core/providers/password"
 * import { SqlAdapter } from "@portcullis/sql-adapter"
 *
 * export const config = {
 *   adapter: SqlAdapter(db, { passwords: true }),
 *   providers: [Password({ emailVerification: "optional" })],
 * }
 * ```
 * @module
 */
import { withKindModule } from "../lib/kinds/provided.js"
import { loadPasswordKind } from "../lib/kinds/password-module.js"
import type { PasswordConfig, PasswordUserConfig } from "../lib/password/provider-types.js"

export type { PasswordProviderId, PasswordConfig, PasswordPolicy, BreachedPasswordPolicy, PasswordUserConfig } from "../lib/password/provider-types.js"

/**
 * Creates the password provider.
 *
 * @example
 * ```ts
 * providers: [Password()] // emailVerification: "required"
 * ```
 */
export default function Password(config: PasswordUserConfig = {}): PasswordConfig {
  // The password code (Argon2, the strength estimator and its dictionaries) comes with this
  // function, not with core: an app without the provider never bundles it (lib/kinds/provided.ts).
  return withKindModule(
    {
      id: "password",
      name: "Password",
      type: "password",
      emailVerification: "required",
      options: config as Record<string, unknown>,
    },
    loadPasswordKind,
  )
}
