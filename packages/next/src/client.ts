/**
 * Browser-side calls to the auth endpoints, used by `@portcullis/next/react` and usable on
 * their own. Every call goes to `basePath` on the page's origin (set by `SessionProvider`,
 * default `/api/auth`).
 * @module
 */
import type { PublicProvider, Session } from "@portcullis/core"

/** Parameters for the provider's authorization request (`prompt`, `login_hint`…). */
export type AuthorizationParams = string | Record<string, string> | URLSearchParams | [string, string][]

/** Options of the client {@link signIn}: where to land, whether to navigate, and credential fields. */
export interface SignInOptions extends Record<string, unknown> {
  /** Where to land after signing in; default: the current page. */
  redirectTo?: string
  /** next-auth v4 name of `redirectTo`. */
  callbackUrl?: string
  /** `false` keeps the page (credentials and email only) and resolves to a {@link SignInResponse}. */
  redirect?: boolean
}

/** What `signIn(…, { redirect: false })` resolves to. */
export interface SignInResponse {
  /** The `?error=` code, e.g. `CredentialsSignin`; `undefined` on success. */
  error: string | undefined
  /** The `?code=` of a `CredentialsSignin` subclass. */
  code: string | undefined
  status: number
  /** `true` only when signed in (next-auth also said `true` for a refused password). */
  ok: boolean
  /** Where the server would have sent the browser; `null` on error. */
  url: string | null
}

/** Options of the client {@link signOut}. */
export interface SignOutOptions {
  /** Where to land afterwards; default: the current page. */
  redirectTo?: string
  /** next-auth v4 name of `redirectTo`. */
  callbackUrl?: string
  /** `false` stays on the page and resolves to `{ url }`. */
  redirect?: boolean
}

const state = { basePath: "/api/auth" }
const listeners = new Set<() => void>()
let channel: BroadcastChannel | undefined | null

/** Sets the base path every client call uses; `SessionProvider` calls it with its `basePath` prop. */
export function setBasePath(basePath: string): void {
  state.basePath = basePath.replace(/\/+$/, "")
}

/** The base path client calls use. */
export function getBasePath(): string {
  return state.basePath
}

/**
 * Subscribes to session changes: this tab's sign-in, sign-out and update, and the same in
 * other tabs of the site (BroadcastChannel). Returns the unsubscribe function.
 */
export function onSessionChange(listener: () => void): () => void {
  listeners.add(listener)
  const bc = broadcastChannel()
  const onMessage = () => listener()
  bc?.addEventListener("message", onMessage)
  return () => {
    listeners.delete(listener)
    bc?.removeEventListener("message", onMessage)
  }
}

/** Tells this tab's listeners and the other tabs that the session changed. */
export function notifySessionChange(): void {
  for (const listener of listeners) listener()
  // The message carries no session: other tabs fetch their own, so nothing is trusted from it.
  broadcastChannel()?.postMessage({ event: "session" })
}

function broadcastChannel(): BroadcastChannel | undefined {
  if (channel === undefined) channel = typeof BroadcastChannel === "undefined" ? null : new BroadcastChannel("portcullis.session")
  return channel ?? undefined
}

/** The absolute URL of an action: the page's origin in the browser, `AUTH_URL` on a server. */
function actionUrl(path: string): string {
  if (typeof window !== "undefined") return new URL(`${state.basePath}/${path}`, window.location.origin).href
  const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {}
  const site = env.AUTH_URL || env.NEXTAUTH_URL
  if (!site) throw new Error("@portcullis/next/react called outside the browser without AUTH_URL; on the server use auth() instead")
  return new URL(`${state.basePath}/${path}`, new URL(site).origin).href
}

async function getJson<T>(path: string): Promise<T | null> {
  try {
    const response = await fetch(actionUrl(path), { headers: { accept: "application/json" }, credentials: "same-origin" })
    if (!response.ok) return null
    return (await response.json()) as T
  } catch {
    // Offline or a network error: callers treat it as "unknown", never as an exception.
    return null
  }
}

/**
 * The current session, or `null`.
 *
 * @example
 * ```ts
 * import { getSession } from "@portcullis/next/react"
 * const session = await getSession()
 * ```
 */
export async function getSession(): Promise<Session | null> {
  const state = await getSessionState()
  return "session" in state ? state.session : null
}

/**
 * The session, telling "signed out" from "could not be asked": `{ session }` (a session, or
 * `null` when signed out), or `{ unavailable: true }` when the server answered `503` (its
 * session store is down) or could not be reached. {@link getSession} folds the second into
 * `null`, as Auth.js clients expect; `SessionProvider` keeps the last known session instead.
 *
 * @example
 * ```ts
 * import { getSessionState } from "@portcullis/next/react"
 * const state = await getSessionState()
 * if ("unavailable" in state) showBanner("Sign-in service unavailable, retrying…")
 * ```
 */
export async function getSessionState(): Promise<{ session: Session | null } | { unavailable: true }> {
  let response: Response
  try {
    response = await fetch(actionUrl("session"), { headers: { accept: "application/json" }, credentials: "same-origin" })
  } catch {
    return { unavailable: true }
  }
  if (response.status === 503) return { unavailable: true }
  if (!response.ok) return { session: null }
  const data = (await response.json().catch(() => null)) as Session | Record<string, never> | null
  return { session: data && Object.keys(data).length ? (data as Session) : null }
}

/** The CSRF token to send with a sign-in, sign-out or session update POST. */
export async function getCsrfToken(): Promise<string> {
  const data = await getJson<{ csrfToken?: string }>("csrf")
  if (!data?.csrfToken) throw new Error("Could not get a CSRF token from the server")
  return data.csrfToken
}

/** The configured providers, by id, as `GET <basePath>/providers` lists them. */
export async function getProviders(): Promise<Record<string, PublicProvider> | null> {
  return getJson<Record<string, PublicProvider>>("providers")
}

async function postForm(path: string, fields: Record<string, string>): Promise<{ response: Response; url: string | undefined }> {
  const response = await fetch(actionUrl(path), {
    method: "POST",
    credentials: "same-origin",
    // Asks for `200 {url}` instead of a 302 the fetch would follow invisibly.
    headers: { "content-type": "application/x-www-form-urlencoded", "x-auth-return-redirect": "1" },
    body: new URLSearchParams(fields),
  })
  const data = (await response.json().catch(() => null)) as { url?: string } | null
  return { response, url: data?.url }
}

function navigate(url: string): void {
  window.location.href = url
  // Setting href to the same URL with only a new #fragment does not load the page.
  if (url.includes("#")) window.location.reload()
}

/**
 * Signs in from the browser. Without a provider (or with an unknown one) it opens the
 * sign-in page. OAuth/OIDC providers navigate to the provider. Credentials and email post the
 * fields and then navigate, or with `redirect: false` resolve to a {@link SignInResponse}.
 *
 * @example
 * ```tsx
 * "use client"
 * import { signIn } from "@portcullis/next/react"
 *
 * <button onClick={() => signIn("github", { redirectTo: "/dashboard" })}>Sign in with GitHub</button>
 *
 * const result = await signIn("credentials", { username, password, redirect: false })
 * if (result?.error) setMessage("Wrong username or password")
 * ```
 */
export async function signIn(provider?: string, options: SignInOptions = {}, authorizationParams?: AuthorizationParams): Promise<SignInResponse | undefined> {
  const { redirectTo, callbackUrl: legacyCallbackUrl, redirect = true, ...fields } = options
  const callbackUrl = redirectTo ?? legacyCallbackUrl ?? window.location.href
  const providers = provider ? await getProviders() : null
  const target = provider ? providers?.[provider] : undefined
  if (!target) {
    navigate(`${actionUrl("signin")}?${new URLSearchParams({ callbackUrl })}`)
    return undefined
  }
  const canStay = target.type === "credentials" || target.type === "email"
  const action = target.type === "credentials" ? "callback" : "signin"
  const query = authorizationParams ? `?${new URLSearchParams(authorizationParams)}` : ""
  const body: Record<string, string> = { csrfToken: await getCsrfToken(), callbackUrl }
  for (const [name, value] of Object.entries(fields)) if (value !== undefined && value !== null) body[name] = String(value)
  const { response, url } = await postForm(`${action}/${encodeURIComponent(provider!)}${query}`, body)

  if (redirect || !canStay) {
    navigate(url ?? callbackUrl)
    return undefined
  }
  const parsed = url ? new URL(url, window.location.href) : undefined
  const error = parsed?.searchParams.get("error") ?? undefined
  const code = parsed?.searchParams.get("code") ?? undefined
  const ok = response.ok && !error
  if (ok) notifySessionChange()
  return { error, code, status: response.status, ok, url: error ? null : (url ?? null) }
}

/**
 * Signs out from the browser (CSRF-protected POST), tells the other tabs, and navigates to
 * `redirectTo` (default: the current page), or with `redirect: false` resolves to `{ url }`.
 *
 * @example
 * ```tsx
 * <button onClick={() => signOut({ redirectTo: "/" })}>Sign out</button>
 * ```
 */
export async function signOut(options: SignOutOptions = {}): Promise<{ url: string } | undefined> {
  const callbackUrl = options.redirectTo ?? options.callbackUrl ?? window.location.href
  const { response, url } = await postForm("signout", { csrfToken: await getCsrfToken(), callbackUrl })
  // A failed sign-out (503: the session could not be ended) changed nothing for other tabs.
  if (response.ok) notifySessionChange()
  if (options.redirect !== false) {
    navigate(url ?? callbackUrl)
    return undefined
  }
  return { url: url ?? callbackUrl }
}

/**
 * Sends `data` to the `jwt`/`session` callbacks (`trigger: "update"`) and returns the new
 * session, or `null` when there is none or the server refused. `useSession().update` wraps it.
 */
export async function updateSession(data?: unknown): Promise<Session | null> {
  try {
    const response = await fetch(actionUrl("session"), {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ csrfToken: await getCsrfToken(), data }),
    })
    if (!response.ok) return null
    const session = (await response.json()) as Session | null
    if (session && Object.keys(session).length) {
      notifySessionChange()
      return session
    }
    return null
  } catch {
    return null
  }
}
