/**
 * Passkey sign-in from SvelteKit pages, as `@auth/sveltekit/webauthn`: runs the WebAuthn
 * ceremony against the auth routes (`/auth` unless `basePath` says otherwise) with core's
 * `@portcullis/core/webauthn`, then navigates, or with `redirect: false` resolves to the result.
 *
 * @example
 * ```svelte
 * <script lang="ts">
 *   import { signIn } from "@portcullis/sveltekit/webauthn"
 * </script>
 * <button onclick={() => signIn("passkey", { email })}>Sign in with a passkey</button>
 * <button onclick={() => signIn("passkey", { action: "register" })}>Add a passkey</button>
 * ```
 * @module
 */
import { signIn as passkeySignIn } from "@portcullis/core/webauthn"
import type { AuthorizationParams, AuthResult, SignInOptions } from "@portcullis/core/client"

export { browserSupportsWebAuthn, browserSupportsWebAuthnAutofill } from "@portcullis/core/webauthn"

/**
 * Signs in (signs up, or adds a passkey with `action: "register"`) with a WebAuthn provider.
 * `email`, `action` and other string fields go to the options request; `redirectTo` (or
 * `callbackUrl`) is where to land. Rejects when the user cancels the browser's dialog.
 */
export async function signIn(provider = "passkey", options: SignInOptions & { callbackUrl?: string } = {}, authorizationParams?: AuthorizationParams): Promise<AuthResult | undefined> {
  const { redirectTo, callbackUrl, redirect = true, basePath = "/auth", email, action, ...rest } = options
  const fields = Object.fromEntries(Object.entries(rest).filter((entry): entry is [string, string] => typeof entry[1] === "string"))
  for (const [name, value] of new URLSearchParams(authorizationParams ?? "")) fields[name] = value
  const target = redirectTo ?? callbackUrl
  const result = await passkeySignIn(provider, {
    basePath,
    redirect,
    fields,
    ...(typeof email === "string" && { email }),
    ...((action === "register" || action === "authenticate") && { action }),
    ...(target !== undefined && { redirectTo: target }),
  })
  if (redirect) return undefined
  const code = new URL(result.url, window.location.href).searchParams.get("code") ?? undefined
  return { url: result.url, error: result.error, code, ok: result.ok, status: result.ok ? 200 : 401, providerType: "webauthn" }
}
