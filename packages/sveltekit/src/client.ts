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

export type { AuthorizationParams, AuthResult, ClientOptions, SignInOptions } from "@portcullis/core/client"

export const { signIn, signOut } = createAuthClient({ basePath: "/auth" })
