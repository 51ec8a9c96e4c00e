import type { AuthAction, Cookie, ResponseInternal, Session } from "@portcullis/core"
import { cookies as nextCookies, headers as nextHeaders } from "next/headers"
import { redirect as nextRedirect } from "next/navigation"
import { appFor, onServer, type App, type NextAuthConfigInput } from "./config.js"
import { actionURL, assertRelativePath, refererPath } from "./url.js"

/** Options of the server {@link SignIn}: where to land, whether to redirect, and provider fields (credentials). */
export type SignInOptions = FormData | ({ redirectTo?: string; redirect?: boolean } & Record<string, unknown>)

/** Extra parameters for the provider's authorization request (`prompt`, `login_hint`…). */
export type AuthorizationParams = string | Record<string, string> | URLSearchParams | [string, string][]

/**
 * Signs in from a Server Action: redirects (to the provider, or to `redirectTo`, else the
 * calling page), or with `redirect: false` returns that URL. Failures are thrown as
 * `AuthError` subclasses, e.g. `CredentialsSignin`.
 */
export interface SignIn {
  (provider?: string, options?: SignInOptions & { redirect?: true }, authorizationParams?: AuthorizationParams): Promise<never>
  (provider: string | undefined, options: SignInOptions & { redirect: false }, authorizationParams?: AuthorizationParams): Promise<string>
  (provider?: string, options?: SignInOptions, authorizationParams?: AuthorizationParams): Promise<string>
}

/** Options of the server {@link SignOut}. */
export interface SignOutOptions {
  /** Path to land on afterwards; default: the page the action was called from. */
  redirectTo?: string
  /** `false` returns the URL instead of redirecting. */
  redirect?: boolean
}

/** Signs out from a Server Action (the database row too): redirects, or with `redirect: false` returns the URL. */
export interface SignOut {
  (options?: SignOutOptions & { redirect?: true }): Promise<never>
  (options: SignOutOptions & { redirect: false }): Promise<string>
  (options?: SignOutOptions): Promise<string>
}

/** `useSession().update(data)` for Server Actions and Route Handlers (`trigger: "update"`); returns the new session. */
export type Update = (data: Partial<Session | { user: Partial<Session["user"]> }>) => Promise<Session | null>

/** Builds the server-side `signIn`, `signOut` and `unstable_update` of {@link NextAuth}. */
export function createActions(input: NextAuthConfigInput): { signIn: SignIn; signOut: SignOut; unstable_update: Update } {
  async function signIn(provider?: string, options: SignInOptions = {}, authorizationParams?: AuthorizationParams): Promise<string> {
    const { app, headers } = await actionContext(input)
    const { redirectTo, redirect = true, ...fields } = options instanceof FormData ? formFields(options) : options
    const callbackUrl = landing(redirectTo, headers, app)
    const target = provider ? app.config.providers.find((p) => typeof p !== "function" && p.id === provider) : undefined
    if (!target || typeof target === "function") {
      // No (or an unknown) provider: the sign-in page, which lists the real ones.
      const url = actionURL("signin", headers, app.config)
      url.searchParams.set("callbackUrl", callbackUrl)
      return finish(url.href, redirect !== false)
    }
    const action: AuthAction = target.type === "credentials" ? "callback" : "signin"
    const url = actionURL(action, headers, app.config)
    url.pathname += `/${encodeURIComponent(target.id)}`
    if (authorizationParams) url.search = new URLSearchParams(authorizationParams).toString()
    const body = new URLSearchParams({ callbackUrl })
    for (const [name, value] of Object.entries(fields)) if (value !== undefined && value !== null) body.set(name, String(value))
    const result = await callAuth(url, headers, "application/x-www-form-urlencoded", body.toString(), app)
    return finish(result.redirect ?? callbackUrl, redirect !== false)
  }

  async function signOut(options: SignOutOptions = {}): Promise<string> {
    const { app, headers } = await actionContext(input)
    const callbackUrl = landing(options.redirectTo, headers, app)
    const url = actionURL("signout", headers, app.config)
    const result = await callAuth(url, headers, "application/x-www-form-urlencoded", new URLSearchParams({ callbackUrl }).toString(), app)
    return finish(result.redirect ?? callbackUrl, options.redirect !== false)
  }

  async function unstable_update(data: Parameters<Update>[0]): Promise<Session | null> {
    const { app, headers } = await actionContext(input)
    const url = actionURL("session", headers, app.config)
    const result = await callAuth(url, headers, "application/json", JSON.stringify({ data }), app)
    const session = result.body as Session | null | undefined
    return session && Object.keys(session).length ? session : null
  }

  return { signIn: signIn as SignIn, signOut: signOut as SignOut, unstable_update }
}

async function actionContext(input: NextAuthConfigInput): Promise<{ app: App; headers: Headers }> {
  // Server Actions have no request object: the config function gets undefined, as in next-auth.
  const [app, headers] = await Promise.all([appFor(input, undefined), nextHeaders()])
  return { app, headers: new Headers(headers) }
}

/**
 * Runs one action through the app's runtime with the browser's headers (so `authorize` sees
 * the real client), CSRF left to Next: Server Actions only accept same-origin POSTs.
 * Cookies the action sets are written through `cookies()`.
 */
async function callAuth(url: URL, incoming: Headers, contentType: string, body: string, app: App): Promise<ResponseInternal> {
  const headers = new Headers(incoming)
  headers.set("content-type", contentType)
  headers.delete("content-length")
  // Next's own action headers describe the action call, not this internal request.
  headers.delete("next-action")
  headers.delete("next-router-state-tree")
  const request = new Request(url, { method: "POST", headers, body })
  const result = await onServer(() => app.runtime.handleInternal(request, { skipCSRF: true }))
  if (result.cookies?.length) await writeCookies(result.cookies)
  return result
}

async function writeCookies(list: Cookie[]): Promise<void> {
  const jar = await nextCookies()
  for (const { name, value, options } of list) jar.set(name, value, options)
}

/** Where to land afterwards: `redirectTo` (a path, checked), else the calling page, else `/`. */
function landing(redirectTo: unknown, headers: Headers, app: App): string {
  if (redirectTo !== undefined && redirectTo !== null && redirectTo !== "") return assertRelativePath(String(redirectTo))
  const origin = actionURL("session", headers, app.config).origin
  return refererPath(headers.get("referer"), origin) ?? "/"
}

function finish(url: string, redirect: boolean): string {
  if (redirect) nextRedirect(url)
  return url
}

/**
 * A form's fields as options. Next adds `$ACTION_*` fields to progressively enhanced forms;
 * they are its bookkeeping, not credentials. `redirect` arrives as text.
 */
function formFields(form: FormData): Record<string, unknown> {
  const fields: Record<string, unknown> = {}
  for (const [name, value] of form) {
    if (name.startsWith("$ACTION") || typeof value !== "string") continue
    fields[name] = value
  }
  if (fields.redirect === "false") fields.redirect = false
  else delete fields.redirect
  return fields
}
