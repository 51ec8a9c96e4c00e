/**
 * Credentials provider: sign in with anything your app can check (username and password,
 * a one-time code, a signed token from another system).
 *
 * `authorize` receives the submitted fields and the request. Return the user to sign them
 * in, `null` to refuse, or throw a {@link CredentialsSignin} subclass with a `code` to
 * refuse with a reason. Refusals redirect to the sign-in page with
 * `?error=CredentialsSignin&code=<code>`: say the same thing for an unknown user and a
 * wrong password.
 *
 * Works with both session strategies: with `database`, the user is found by `id`, then by
 * email, or created, and a session row is stored (Auth.js refuses this combination).
 *
 * @example
 * ```ts
 * import Credentials from "@portcullis/core/providers/credentials"
 *
 * Credentials({
 *   credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
 *   async authorize({ username, password }) {
 *     const user = await db.findUser(String(username))
 *     return user && (await verifyPassword(user.hash, String(password))) ? user : null
 *   },
 * })
 * ```
 * @module
 */
import type { Awaitable, User } from "../base-types.js"
import type { CommonProviderOptions } from "../base-types.js"

export { CredentialsSignin } from "../errors.js"

/** The default id of a {@link Credentials} provider. */
export type CredentialsProviderId = "credentials"

/** One input of the built-in sign-in form. */
export interface CredentialInput {
  label?: string
  type?: "text" | "password" | "email" | "number" | "tel" | "hidden" | string
  placeholder?: string
  autocomplete?: string
  required?: boolean
}

/** The fields the sign-in form shows, by name. */
export type CredentialsInputs = Record<string, CredentialInput>

/** A credentials provider. */
export interface CredentialsConfig<Inputs extends CredentialsInputs = CredentialsInputs> extends CommonProviderOptions {
  type: "credentials"
  credentials: Inputs
  /**
   * Checks the submitted fields. Returns the user, or `null` to refuse.
   * `credentials` holds every submitted field as a string.
   */
  authorize: (
    credentials: Partial<Record<keyof Inputs | (string & {}), unknown>>,
    request: Request,
  ) => Awaitable<User | null>
}

/** What you pass to {@link Credentials}. */
export type CredentialsUserConfig<Inputs extends CredentialsInputs> = Partial<Omit<CredentialsConfig<Inputs>, "type" | "options">>

/** Creates a credentials provider (id `credentials` unless you set one). */
export default function Credentials<Inputs extends CredentialsInputs = CredentialsInputs>(
  config: CredentialsUserConfig<Inputs>,
): CredentialsConfig<Inputs> {
  return {
    id: "credentials",
    name: "Credentials",
    type: "credentials",
    credentials: {} as Inputs,
    authorize: () => null,
    options: config as Record<string, unknown>,
  }
}
