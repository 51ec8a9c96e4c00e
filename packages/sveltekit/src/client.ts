/**
 * Browser-side sign-in and sign-out for SvelteKit pages: `@portcullis/core/client` with the
 * endpoints at `/auth` by default. CSRF protection stays on (each call fetches a token).
 *
 * @example
 * ```svelte
 * <script lang="ts">
 *   import { signIn, signOut } from "@portcullis/sveltekit/client"
 * </script>
 * <button onclick={() => signIn("github")}>Sign in with GitHub</button>
 * <button onclick={() => signIn("credentials", { username, password, redirectTo: "/account" })}>Sign in</button>
 * <button onclick={() => signOut()}>Sign out</button>
 * ```
 * @module
 */
import { createAuthClient } from "@portcullis/core/client"

import type { AuthorizationParams, AuthResult, ClientOptions } from "@portcullis/core/client"

export type { AuthorizationParams, AuthResult, ClientOptions, SignInOptions } from "@portcullis/core/client"
/** Auth.js's name for the third argument of `signIn`: extra parameters for the provider's authorization URL. */
export type SignInAuthorizationParams = AuthorizationParams
/** Auth.js's name for what `signIn(…, { redirect: false })` resolves to. */
export type SignInResponse = AuthResult
/** Auth.js's name for the options of `signOut`; `R` is the type of `redirect`. */
export type SignOutParams<R extends boolean = true> = Omit<ClientOptions, "redirect"> & { redirect?: R }
/** Auth.js's name for what `signOut({ redirect: false })` resolves to. */
export type SignOutResponse = AuthResult

export const { signIn, signOut } = createAuthClient({ basePath: "/auth" })
