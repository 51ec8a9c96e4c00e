"use client"
/**
 * The React client, as `next-auth/react`: `SessionProvider`, `useSession`, and the browser
 * calls. Those are core's (`@portcullis/core/client`: CSRF-protected, other tabs told of
 * sign-ins, sign-outs and updates); this module adds the base path `SessionProvider` sets
 * and next-auth's option names and results.
 * @module
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react"
import { createAuthClient, onSessionChange, type AuthorizationParams, type AuthResult, type ClientOptions } from "@portcullis/core/client"
import type { PublicProvider, Session } from "@portcullis/core"

export type { AuthorizationParams, SessionState } from "@portcullis/core/client"
export type { Session } from "@portcullis/core"
/** next-auth's name for the third argument of {@link signIn}: extra parameters for the provider's authorization URL. */
export type SignInAuthorizationParams = AuthorizationParams
/** Where to land (`redirectTo`, or v4's `callbackUrl`; default: this page), `redirect: false` (credentials, email) to stay, and credential fields. */
export type SignInOptions = Record<string, unknown> & { redirectTo?: string; callbackUrl?: string; redirect?: boolean }
/** What `signIn(…, { redirect: false })` resolves to; `ok` is `false` for a refused password, `url` `null` on error. */
export type SignInResponse = Pick<AuthResult, "error" | "code" | "status" | "ok"> & { url: string | null }
/** Where to land (`redirectTo`, or v4's `callbackUrl`; default: this page); `redirect: false` resolves to `{ url }`. */
export type SignOutOptions = Omit<ClientOptions, "basePath"> & { callbackUrl?: string }
/** next-auth's name for {@link SignOutOptions}; `R` is the type of `redirect`. */
export type SignOutParams<R extends boolean = true> = Omit<SignOutOptions, "redirect"> & { redirect?: R }
/** `update(data)` of {@link useSession}: sends `data` to the `jwt`/`session` callbacks (`trigger: "update"`), resolves to the new session. */
export type UpdateSession = (data?: any) => Promise<Session | null>
/**
 * Accepted by {@link getSession} for next-auth compatibility. `event` and `triggerEvent` only
 * named next-auth's internal polling; other tabs are told of sign-ins, sign-outs and updates
 * when they happen, so a plain read does not broadcast (`broadcast` is ignored).
 */
export interface GetSessionParams {
  event?: "storage" | "timer" | "hidden" | string
  triggerEvent?: boolean
  broadcast?: boolean
}

/**
 * The client's settings and last known session, as next-auth's `__NEXTAUTH`: `basePath` (set
 * by the last `SessionProvider` rendered, or assigned here; the client calls follow it),
 * `baseUrl`/`baseUrlServer`/`basePathServer` from `AUTH_URL`/`NEXTAUTH_URL`(`_INTERNAL`) where
 * the bundle has them, `_session` and `_lastSync` (seconds) of the mounted provider, and
 * `_getSession()`, which makes it refetch (or just fetches the session without one).
 */
export interface AuthClientConfig {
  baseUrl: string
  basePath: string
  baseUrlServer: string
  basePathServer: string
  _session?: Session | null | undefined
  _lastSync: number
  _getSession: (...args: any[]) => any
}

type EnvName = "AUTH_URL" | "NEXTAUTH_URL" | "NEXTAUTH_URL_INTERNAL" | "VERCEL_URL"
/** An environment variable where the bundle has one (`process.env` exists in Next's browser bundles, mostly empty). */
const env = (name: EnvName): string | undefined => (typeof process === "undefined" ? undefined : process.env?.[name]) || undefined
/** Origin and path of a configured URL (`VERCEL_URL` comes without a scheme); none → `""`, `/api/auth`. */
function parsed(url: string | undefined): { origin: string; path: string } {
  const full = url && (url.includes("://") ? url : `https://${url}`)
  if (!full || !URL.canParse(full)) return { origin: "", path: "/api/auth" }
  const { origin, pathname } = new URL(full)
  return { origin, path: pathname.replace(/\/+$/, "") || "/api/auth" }
}

// The base path of the last SessionProvider rendered (or assigned to __NEXTAUTH.basePath); the client calls follow it.
let basePath = "/api/auth"
let client = createAuthClient({ basePath })
function followBasePath(path: string): void {
  const trimmed = path.replace(/\/+$/, "")
  if (trimmed !== basePath) client = createAuthClient({ basePath: (basePath = trimmed) })
}
// The mounted SessionProvider's refetch, which __NEXTAUTH._getSession calls.
let refetchMounted: (() => Promise<unknown>) | undefined

export const __NEXTAUTH: AuthClientConfig = {
  baseUrl: parsed(env("AUTH_URL") ?? env("NEXTAUTH_URL") ?? env("VERCEL_URL")).origin,
  get basePath() {
    return basePath
  },
  set basePath(path: string) {
    followBasePath(path)
  },
  baseUrlServer: parsed(env("NEXTAUTH_URL_INTERNAL") ?? env("AUTH_URL") ?? env("NEXTAUTH_URL") ?? env("VERCEL_URL")).origin,
  basePathServer: parsed(env("NEXTAUTH_URL_INTERNAL") ?? env("AUTH_URL") ?? env("NEXTAUTH_URL")).path,
  _session: undefined,
  _lastSync: 0,
  _getSession: () => (refetchMounted ? refetchMounted() : getSession()),
}

/** The session, or `null` (also when the server could not be asked: see {@link getSessionState}). */
export const getSession = (_params?: GetSessionParams): Promise<Session | null> => client.getSession()
/** `{ session }` (`null` when signed out), or `{ unavailable: true }` on a `503` or no answer: an outage is not a sign-out. */
export const getSessionState = () => client.getSessionState()
/** The CSRF token for a hand-built POST to the auth endpoints. */
export const getCsrfToken = (): Promise<string> => client.getCsrfToken()
/** The configured providers by id, as `GET <basePath>/providers` lists them. */
export const getProviders = (): Promise<Record<string, PublicProvider> | null> => client.getProviders()

/**
 * Signs in from the browser: the sign-in page without a provider (or with an unknown one),
 * the provider's page for OAuth/OIDC; credentials and email post the fields and navigate, or
 * with `redirect: false` resolve to a {@link SignInResponse}.
 */
export async function signIn(provider?: string, options: SignInOptions = {}, authorizationParams?: AuthorizationParams): Promise<SignInResponse | undefined> {
  const { redirectTo, callbackUrl, redirect = true, ...fields } = options
  const result = await client.signIn(provider, { ...fields, redirectTo: redirectTo ?? callbackUrl, redirect: false }, authorizationParams)
  if (!result) return undefined // it went to the sign-in page
  const { error, code, status, ok, url, providerType } = result
  if (!redirect && (providerType === "credentials" || providerType === "password" || providerType === "email")) return { error, code, status, ok, url: error ? null : url }
  window.location.href = url
  // A URL that differs only by its #fragment does not load the page.
  if (url.includes("#")) window.location.reload()
  return undefined
}

/** Signs out (CSRF-protected POST), tells the other tabs, and navigates, or with `redirect: false` resolves to `{ url }`. */
export async function signOut(options: SignOutOptions = {}): Promise<{ url: string } | undefined> {
  const result = await client.signOut({ redirectTo: options.redirectTo ?? options.callbackUrl, redirect: options.redirect !== false })
  return result && { url: result.url }
}

/** What {@link useSession} returns; `update(data)` sends `data` to the `jwt`/`session` callbacks (`trigger: "update"`). */
export type SessionContextValue<R extends boolean = false> = { update: UpdateSession } & (
  | { data: Session; status: "authenticated" }
  | { data: R extends true ? Session | null : null; status: "unauthenticated" | "loading" }
)

/**
 * Props of {@link SessionProvider}: `session` from the server (`await auth()`; no fetch on
 * load, `null` = signed out), `basePath` (default `/api/auth`), `refetchInterval` (seconds,
 * 0 = never), `refetchOnWindowFocus` (default `true`), `refetchWhenOffline` (default `false`).
 */
export interface SessionProviderProps {
  children: ReactNode
  session?: Session | null
  basePath?: string
  refetchInterval?: number
  refetchOnWindowFocus?: boolean
  refetchWhenOffline?: boolean
}

/**
 * The context {@link SessionProvider} fills and {@link useSession} reads, as next-auth exports
 * it: `useContext(SessionContext)` is `undefined` outside a provider, where `useSession` throws.
 */
export const SessionContext = createContext<SessionContextValue<boolean> | undefined>(undefined)

/**
 * Holds the session for the components below it and keeps it fresh: on load (unless the
 * server passed it), when the tab becomes visible, every `refetchInterval` seconds, and when
 * any tab signs in, signs out or updates the session.
 */
export function SessionProvider({ children, session: initial, basePath: base = "/api/auth", refetchInterval = 0, refetchOnWindowFocus = true, refetchWhenOffline = false }: SessionProviderProps) {
  followBasePath(base)
  const [session, setSession] = useState<Session | null>(initial ?? null)
  const [loading, setLoading] = useState(initial === undefined)
  // A new session from the server (a Server Action signed in or out, and the layout
  // re-rendered) is taken during this render, not in an effect: children's effects run
  // first, so `useSession({ required: true })` would otherwise act on the stale session —
  // send a just-signed-in user back to sign in.
  const [taken, setTaken] = useState(initial)
  if (initial !== taken) {
    setTaken(initial)
    if (initial !== undefined) {
      setSession(initial)
      setLoading(false)
    }
  }
  // Answers can arrive out of order (a slow focus refetch after an update); only the latest counts.
  const generation = useRef(0)

  const refetch = useCallback(async () => {
    const mine = ++generation.current
    const fresh = await getSessionState()
    if (mine !== generation.current) return
    // An outage is not a sign-out: keep what we knew rather than flip to "unauthenticated".
    if ("session" in fresh) {
      setSession(fresh.session)
      __NEXTAUTH._session = fresh.session
      __NEXTAUTH._lastSync = Math.floor(Date.now() / 1000)
    }
    setLoading(false)
  }, [])

  useEffect(() => {
    refetchMounted = refetch
    return () => {
      if (refetchMounted === refetch) refetchMounted = undefined
    }
  }, [refetch])

  useEffect(() => {
    if (initial === undefined) return void refetch()
    // The state itself was taken during render (above); the global mirror follows here.
    __NEXTAUTH._session = initial
  }, [initial, refetch])
  useEffect(() => onSessionChange(() => void refetch()), [refetch])

  useEffect(() => {
    if (!refetchOnWindowFocus) return
    const onVisible = () => document.visibilityState === "visible" && void refetch()
    document.addEventListener("visibilitychange", onVisible)
    return () => document.removeEventListener("visibilitychange", onVisible)
  }, [refetchOnWindowFocus, refetch])

  useEffect(() => {
    if (!refetchInterval) return
    const timer = setInterval(() => (refetchWhenOffline || navigator.onLine !== false) && void refetch(), refetchInterval * 1000)
    return () => clearInterval(timer)
  }, [refetchInterval, refetchWhenOffline, refetch])

  const update = useCallback(async (data?: unknown) => {
    const mine = ++generation.current
    setLoading(true)
    const fresh = await client.updateSession(data)
    if (mine === generation.current) {
      if (fresh) setSession((__NEXTAUTH._session = fresh))
      setLoading(false)
    }
    return fresh
  }, [])

  const status = loading ? "loading" : session ? "authenticated" : "unauthenticated"
  const value = useMemo(() => ({ data: session, status, update }) as SessionContextValue<boolean>, [session, status, update])
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>
}

/** Options of {@link useSession}: with `required`, signed-out users go to sign in, or `onUnauthenticated` runs. */
export interface UseSessionOptions<R extends boolean> {
  required?: R
  onUnauthenticated?: () => void
}

/**
 * `{ data, status, update }` inside a {@link SessionProvider}. With `required: true`, a
 * signed-out user is sent to `<basePath>/signin?error=SessionRequired&callbackUrl=…` and the
 * status stays `"loading"` meanwhile, so the page never renders signed-out content.
 */
export function useSession<R extends boolean = false>(options?: UseSessionOptions<R>): SessionContextValue<R> {
  const value = useContext(SessionContext)
  if (!value) throw new Error("useSession must be used inside <SessionProvider>")
  const { required, onUnauthenticated } = options ?? {}
  const mustLeave = !!required && value.status === "unauthenticated"

  useEffect(() => {
    if (!mustLeave) return
    if (onUnauthenticated) return onUnauthenticated()
    const params = new URLSearchParams({ error: "SessionRequired", callbackUrl: window.location.href })
    window.location.href = `${basePath}/signin?${params}`
  }, [mustLeave, onUnauthenticated])

  if (mustLeave) return { data: value.data, status: "loading", update: value.update } as SessionContextValue<R>
  return value as SessionContextValue<R>
}
