import type { Session } from "@portcullis/core"
import type { AuthorizationParams } from "@portcullis/core/client"
import { InvalidCallbackUrl } from "@portcullis/core/errors"
import { cookies as nextCookies, headers as nextHeaders } from "next/headers"
import { redirect as nextRedirect } from "next/navigation"
import { appFor, onServer, type NextAuthConfigInput } from "./config.js"
import { actionURL } from "./session.js"

/** Options of the server {@link SignIn}: where to land, whether to redirect, provider fields; or the form itself. */
export type SignInOptions = FormData | ({ redirectTo?: string; redirect?: boolean } & Record<string, unknown>)
export type { AuthorizationParams } from "@portcullis/core/client"
/** Options of the server {@link SignOut}: a path to land on (default: the calling page), `redirect: false` for the URL. */
export type SignOutOptions = { redirectTo?: string; redirect?: boolean }

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

/** Signs out from a Server Action (the database row too): redirects, or with `redirect: false` returns the URL. */
export interface SignOut {
  (options?: SignOutOptions & { redirect?: true }): Promise<never>
  (options: SignOutOptions & { redirect: false }): Promise<string>
  (options?: SignOutOptions): Promise<string>
}

/** `useSession().update(data)` for Server Actions and Route Handlers (`trigger: "update"`); returns the new session. */
export type Update = (data: Partial<Session | { user: Partial<Session["user"]> }>) => Promise<Session | null>

/**
 * The server-side `signIn`, `signOut` and `unstable_update`: each posts to the app's runtime
 * in-process with the browser's headers (so `authorize` sees the real client), CSRF left to
 * Next (Server Actions only accept same-origin POSTs), and writes cookies through `cookies()`.
 */
export function createActions(input: NextAuthConfigInput): { signIn: SignIn; signOut: SignOut; unstable_update: Update } {
  async function context(redirectTo?: unknown) {
    // Server Actions have no request object: the config function gets undefined, as in next-auth.
    const [app, incoming] = await Promise.all([appFor(input, undefined), nextHeaders()])
    const headers = new Headers(incoming)
    const url = (action: string) => actionURL(action, headers, app.config)
    const callbackUrl = landing(redirectTo, headers.get("referer"), url("session").origin)
    async function post(action: string | URL, body: URLSearchParams | string) {
      // Next's own headers describe the action call, not this request.
      for (const name of ["content-length", "next-action", "next-router-state-tree"]) headers.delete(name)
      headers.set("content-type", typeof body === "string" ? "application/json" : "application/x-www-form-urlencoded")
      const request = new Request(typeof action === "string" ? url(action) : action, { method: "POST", headers, body })
      const result = await onServer(() => app.runtime.handleInternal(request, { skipCSRF: true }))
      const jar = await nextCookies()
      for (const { name, value, options } of result.cookies ?? []) jar.set(name, value, options)
      return result
    }
    return { app, url, callbackUrl, post }
  }

  async function signIn(provider?: string, options: SignInOptions = {}, authorizationParams?: AuthorizationParams): Promise<string> {
    const { redirectTo, redirect = true, ...fields } = options instanceof FormData ? formFields(options) : options
    const { app, url, callbackUrl, post } = await context(redirectTo)
    const target = app.config.providers.find((p) => typeof p !== "function" && p.id === provider)
    if (!target || typeof target === "function") {
      // No (or an unknown) provider: the sign-in page, which lists the real ones.
      const page = url("signin")
      page.searchParams.set("callbackUrl", callbackUrl)
      return finish(page.href, redirect)
    }
    const action = url(`${target.type === "credentials" || target.type === "password" ? "callback" : "signin"}/${encodeURIComponent(target.id)}`)
    if (authorizationParams) action.search = new URLSearchParams(authorizationParams).toString()
    const body = new URLSearchParams({ callbackUrl })
    for (const [name, value] of Object.entries(fields)) if (value !== undefined && value !== null) body.set(name, String(value))
    return finish((await post(action, body)).redirect ?? callbackUrl, redirect)
  }

  async function signOut(options: SignOutOptions = {}): Promise<string> {
    const { callbackUrl, post } = await context(options.redirectTo)
    return finish((await post("signout", new URLSearchParams({ callbackUrl }))).redirect ?? callbackUrl, options.redirect)
  }

  async function unstable_update(data: Parameters<Update>[0]): Promise<Session | null> {
    const { post } = await context()
    const session = (await post("session", JSON.stringify({ data }))).body as Session | null | undefined
    return session && Object.keys(session).length ? session : null
  }

  return { signIn: signIn as SignIn, signOut: signOut as SignOut, unstable_update }
}

/**
 * Where to land: `redirectTo`, which must be a path on this site (absolute URLs are refused
 * rather than compared: the origin an action sees is only as good as its headers), else the
 * calling page when on this origin, else `/`.
 */
function landing(redirectTo: unknown, referer: string | null, origin: string): string {
  if (redirectTo !== undefined && redirectTo !== null && redirectTo !== "") {
    const path = String(redirectTo)
    if (path.startsWith("/") && !path.startsWith("//") && !path.startsWith("/\\") && !/[\u0000-\u001f]/.test(path)) return path
    throw new InvalidCallbackUrl(`redirectTo must be a path starting with "/", got ${JSON.stringify(path.slice(0, 100))}`)
  }
  const from = referer && URL.canParse(referer) ? new URL(referer) : undefined
  return from?.origin === origin ? from.pathname + from.search + from.hash : "/"
}

function finish(url: string, redirect: unknown): string {
  if (redirect !== false) nextRedirect(url)
  return url
}

/** A form's fields: without Next's `$ACTION_*` bookkeeping, `redirect` from text. */
function formFields(form: FormData): Record<string, unknown> {
  const fields: Record<string, unknown> = {}
  for (const [name, value] of form) if (!name.startsWith("$ACTION") && typeof value === "string") fields[name] = value
  if (fields.redirect === "false") fields.redirect = false
  else delete fields.redirect
  return fields
}
