"use client"
/**
 * Passkey sign-in from React, as `next-auth/webauthn`: `signIn("passkey", options)` runs
 * the WebAuthn ceremony against the auth routes the `SessionProvider` points at (core's
 * `@portcullis/core/webauthn`), then navigates, or with `redirect: false` resolves to a
 * `SignInResponse` after the page's `SessionProvider` refetched the session.
 *
 * @example
 * ```tsx
 * import { signIn } from "@portcullis/next/webauthn"
 * <button onClick={() => signIn("passkey", { email })}>Sign in with a passkey</button>
 * <button onClick={() => signIn("passkey", { action: "register" })}>Add a passkey</button>
 * ```
 * @module
 */
import { signIn as passkeySignIn } from "@portcullis/core/webauthn"
import { __NEXTAUTH, type SignInAuthorizationParams, type SignInOptions, type SignInResponse } from "./react.js"

export { browserSupportsWebAuthn, browserSupportsWebAuthnAutofill } from "@portcullis/core/webauthn"

/**
 * Signs in (signs up, or adds a passkey when `action: "register"`) with a WebAuthn provider.
 * `email`, `action` and other string fields go to the options request; `redirectTo`
 * (or `callbackUrl`) is where to land. Rejects when the user cancels the browser's dialog.
 */
export async function signIn(provider = "passkey", options: SignInOptions = {}, authorizationParams?: SignInAuthorizationParams): Promise<SignInResponse | undefined> {
  const { redirectTo, callbackUrl, redirect = true, email, action, ...rest } = options
  const fields = Object.fromEntries(Object.entries(rest).filter((entry): entry is [string, string] => typeof entry[1] === "string"))
  for (const [name, value] of new URLSearchParams(authorizationParams ?? "")) fields[name] = value
  const result = await passkeySignIn(provider, {
    basePath: __NEXTAUTH.basePath,
    redirect,
    fields,
    ...(typeof email === "string" && { email }),
    ...((action === "register" || action === "authenticate") && { action }),
    ...(typeof (redirectTo ?? callbackUrl) === "string" && { redirectTo: (redirectTo ?? callbackUrl) as string }),
  })
  // As next-auth does: the SessionProvider of this page refetches (navigation reloads anyway).
  if (result.ok && !redirect) await __NEXTAUTH._getSession({ event: "storage" })
  if (redirect) return undefined
  const code = new URL(result.url, window.location.href).searchParams.get("code") ?? undefined
  return { error: result.error, code, status: result.ok ? 200 : 401, ok: result.ok, url: result.error ? null : result.url }
}
