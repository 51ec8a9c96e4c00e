/**
 * Browser-side sign-in and sign-out for SolidStart pages: `@portcullis/core/client` with the
 * endpoints at `/api/auth` by default. CSRF protection stays on (each call fetches a token).
 *
 * @example
 * ```tsx
 * import { signIn, signOut } from "@portcullis/solid-start/client"
 *
 * <button onClick={() => signIn("github")}>Sign in with GitHub</button>
 * <button onClick={() => signIn("credentials", { username, password, redirectTo: "/account" })}>Sign in</button>
 * <button onClick={() => signOut()}>Sign out</button>
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

export const { signIn, signOut } = createAuthClient({ basePath: "/api/auth" })
