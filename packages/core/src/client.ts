/**
 * Browser-side calls to the HTTP endpoints, for any integration: sign-in, sign-out, and
 * reading or updating the session (`getSession`, `getSessionState`, `updateSession`,
 * `getCsrfToken`, `getProviders`), and `onSessionChange` to keep a page's UI and its other
 * tabs in step.
 *
 * Unlike Auth.js's framework clients, these keep CSRF protection on: each call fetches a
 * token from `<basePath>/csrf` and posts it with the form. Integrations re-export them with
 * their own default base path through {@link createAuthClient}.
 *
 * @example
 * ```ts
 * import { signIn, signOut } from "@portcullis/core/client"
 *
 * await signIn("github")
 * await signIn("credentials", { username, password, redirectTo: "/account" })
 * await signOut({ redirectTo: "/" })
 * ```
 * @module
 */
import type { PublicProvider, Session } from "./types.js"

export interface ClientOptions {
  /** Where the endpoints live; the client's default unless the server config sets another `basePath`. */
  basePath?: string
  /** Where to go afterwards (a same-site path or URL); default: the current page. */
  redirectTo?: string
  /** `false`: stay on the page and return the outcome instead of navigating. */
  redirect?: boolean
}

/** Options of {@link signIn}: the common options plus the provider's fields (credentials). */
export type SignInOptions = ClientOptions & Record<string, unknown>

/** What a call returns when `redirect: false`. */
export interface AuthResult {
  /** Where the server would have sent the browser. */
  url: string
  /** The public error code (`CredentialsSignin`…), when the server reported one. */
  error: string | undefined
  /** The provider's own code for a credentials failure, when it set one. */
  code: string | undefined
  ok: boolean
  status: number
  /**
   * The type of the provider posted to (`credentials`, `email`, `oauth`…), absent for a
   * sign-out. Tells a finished sign-in (`credentials`) from one that only started.
   */
  providerType?: string
}

/**
 * What the server said about the session: `{ session }` (`null` when signed out), or
 * `{ unavailable: true }` when it answered `503` (its session store is down) or could not
 * be reached. An outage is not a sign-out.
 */
export type SessionState = { session: Session | null } | { unavailable: true }

export type AuthorizationParams = string | string[][] | Record<string, string> | URLSearchParams

/**
 * Starts a sign-in. Without a provider, goes to the sign-in page. With an OAuth or OIDC
 * provider, goes to the provider; with credentials, posts them (and lands on the sign-in
 * page with `?error=CredentialsSignin` when they are refused).
 */
export async function signIn(provider?: string, options: SignInOptions = {}, authorizationParams?: AuthorizationParams): Promise<AuthResult | undefined> {
  const { basePath = "/auth", redirectTo, redirect = true, ...fields } = options
  const callbackUrl = redirectTo ?? window.location.href
  const base = trimSlash(basePath)
  if (!provider) {
    navigate(`${base}/signin?${new URLSearchParams({ callbackUrl })}`)
    return undefined
  }
  const [csrfToken, providers] = await Promise.all([fetchCsrfToken(base), fetchJson<Record<string, { type: string }>>(`${base}/providers`)])
  const type = providers?.[provider]?.type
  if (!type) {
    navigate(`${base}/signin?${new URLSearchParams({ callbackUrl })}`)
    return undefined
  }
  // Credentials and password sign-ins are one POST to the callback, with the fields.
  const action = type === "credentials" || type === "password" ? "callback" : "signin"
  const query = authorizationParams ? `?${new URLSearchParams(authorizationParams)}` : ""
  const body = new URLSearchParams()
  for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== null) body.set(k, String(v))
  body.set("csrfToken", csrfToken)
  body.set("callbackUrl", callbackUrl)
  return post(`${base}/${action}/${encodeURIComponent(provider)}${query}`, body, redirect, type)
}

/** Signs out (the server deletes the session) and goes to `redirectTo` or reloads the page. */
export async function signOut(options: ClientOptions = {}): Promise<AuthResult | undefined> {
  const { basePath = "/auth", redirectTo, redirect = true } = options
  const base = trimSlash(basePath)
  const body = new URLSearchParams({ csrfToken: await fetchCsrfToken(base), callbackUrl: redirectTo ?? window.location.href })
  return post(`${base}/signout`, body, redirect)
}

/**
 * The session, or `null` when signed out or when the server could not say (see
 * {@link getSessionState} to tell those apart).
 */
export async function getSession(options: { basePath?: string } = {}): Promise<Session | null> {
  const state = await getSessionState(options)
  return "session" in state ? state.session : null
}

/** The session, telling "signed out" (`{ session: null }`) from "could not be asked" (`{ unavailable: true }`). */
export async function getSessionState(options: { basePath?: string } = {}): Promise<SessionState> {
  let response: Response
  try {
    response = await fetch(`${trimSlash(options.basePath ?? "/auth")}/session`, { credentials: "same-origin", headers: { Accept: "application/json" } })
  } catch {
    return { unavailable: true }
  }
  if (response.status === 503) return { unavailable: true }
  if (!response.ok) return { session: null }
  return { session: sessionOf(await response.json().catch(() => null)) }
}

/** A CSRF token for a hand-built POST to the endpoints (`csrfToken` field). Throws when none is given out. */
export function getCsrfToken(options: { basePath?: string } = {}): Promise<string> {
  return fetchCsrfToken(trimSlash(options.basePath ?? "/auth"))
}

/** The configured providers by id, or `null` when the server could not be asked. */
export async function getProviders(options: { basePath?: string } = {}): Promise<Record<string, PublicProvider> | null> {
  return fetchJson<Record<string, PublicProvider>>(`${trimSlash(options.basePath ?? "/auth")}/providers`).catch(() => null)
}

/**
 * Sends `data` to the `jwt`/`session` callbacks (`trigger: "update"`, CSRF-checked) and
 * returns the new session, or `null` when there is none or the server refused.
 */
export async function updateSession(data?: unknown, options: { basePath?: string } = {}): Promise<Session | null> {
  const base = trimSlash(options.basePath ?? "/auth")
  try {
    const response = await fetch(`${base}/session`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ csrfToken: await fetchCsrfToken(base), data }),
    })
    const session = response.ok ? sessionOf(await response.json().catch(() => null)) : null
    if (session) sessionChanged()
    return session
  } catch {
    return null
  }
}

/** `null` for "no session": the endpoint answers `null`, or `{}` as Auth.js does. */
function sessionOf(data: unknown): Session | null {
  return data && typeof data === "object" && Object.keys(data).length ? (data as Session) : null
}

async function post(path: string, body: URLSearchParams, redirect: boolean, providerType?: string): Promise<AuthResult | undefined> {
  const response = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Auth-Return-Redirect": "1" },
    body,
  })
  const data = (await response.json().catch(() => null)) as { url?: unknown } | null
  const url = typeof data?.url === "string" ? data.url : new URL(path, window.location.href).href
  const params = new URL(url, window.location.href).searchParams
  const error = params.get("error") ?? undefined
  const ok = response.ok && !error
  // Before navigating, so other tabs follow at once. Only a sign-out or a credentials
  // sign-in has changed the session by now; other sign-ins have only started.
  if (ok && (providerType === undefined || providerType === "credentials" || providerType === "password")) sessionChanged()
  if (redirect) {
    navigate(url)
    return undefined
  }
  const result: AuthResult = { url, error, code: error ? (params.get("code") ?? undefined) : undefined, ok, status: response.status }
  if (providerType) result.providerType = providerType
  return result
}

async function fetchCsrfToken(base: string): Promise<string> {
  const data = await fetchJson<{ csrfToken?: unknown }>(`${base}/csrf`)
  if (typeof data?.csrfToken !== "string") throw new Error(`Could not get a CSRF token from ${base}/csrf`)
  return data.csrfToken
}

async function fetchJson<T>(path: string): Promise<T | null> {
  const response = await fetch(path, { credentials: "same-origin", headers: { Accept: "application/json" } })
  if (!response.ok) return null
  return (await response.json().catch(() => null)) as T | null
}

function navigate(url: string): void {
  window.location.href = url
  // Assigning a URL that differs only by its hash does not load the page.
  if (url.includes("#")) window.location.reload()
}

function trimSlash(path: string): string {
  return path.replace(/\/+$/, "")
}

const CHANNEL = "portcullis.session"

/**
 * Tells this page's and other tabs' listeners that the session changed. A fresh
 * `BroadcastChannel` per message reaches every other channel object of that name — the
 * listeners of this page included — so the module keeps no registry of its own. Without
 * `BroadcastChannel`, a `window` event reaches this page's listeners.
 */
function sessionChanged(): void {
  if (typeof BroadcastChannel !== "undefined") {
    const channel = new BroadcastChannel(CHANNEL)
    // No data in the message: each tab asks the server for its own session.
    channel.postMessage({ event: "session" })
    channel.close()
  } else if (typeof window !== "undefined") {
    window.dispatchEvent(new Event(CHANNEL))
  }
}

/**
 * Runs `listener` whenever this page changed the session through this module (a
 * credentials sign-in, a sign-out, an update that returned a session) or another tab of the
 * site did (`BroadcastChannel` `portcullis.session`). For UI that shows the session: refetch
 * it then. Returns the unsubscribe function.
 */
export function onSessionChange(listener: () => void): () => void {
  const onMessage = () => listener()
  if (typeof BroadcastChannel !== "undefined") {
    const channel = new BroadcastChannel(CHANNEL)
    channel.addEventListener("message", onMessage)
    return () => channel.close()
  }
  if (typeof window === "undefined") return () => {}
  window.addEventListener(CHANNEL, onMessage)
  return () => window.removeEventListener(CHANNEL, onMessage)
}

/** The client calls with `basePath` defaulting to `defaults.basePath` (e.g. `/auth`, Next's `/api/auth`). */
export function createAuthClient(defaults: { basePath: string }) {
  const { basePath } = defaults
  return {
    signIn: (provider?: string, options: SignInOptions = {}, authorizationParams?: AuthorizationParams) => signIn(provider, { basePath, ...options }, authorizationParams),
    signOut: (options: ClientOptions = {}) => signOut({ basePath, ...options }),
    getSession: () => getSession({ basePath }),
    getSessionState: () => getSessionState({ basePath }),
    getCsrfToken: () => getCsrfToken({ basePath }),
    getProviders: () => getProviders({ basePath }),
    updateSession: (data?: unknown) => updateSession(data, { basePath }),
  }
}

/** What {@link createAuthClient} returns. */
export type AuthClient = ReturnType<typeof createAuthClient>
