"use client"
/**
 * The React client of Portcullis for Next.js, as `next-auth/react`: `SessionProvider`,
 * `useSession`, and the browser calls `signIn`, `signOut`, `getSession`, `getCsrfToken`,
 * `getProviders`.
 *
 * @example
 * ```tsx
 * // app/layout.tsx
 * import { SessionProvider } from "@portcullis/next/react"
 * export default function Layout({ children }) {
 *   return <html><body><SessionProvider>{children}</SessionProvider></body></html>
 * }
 *
 * // a Client Component
 * "use client"
 * import { useSession, signIn } from "@portcullis/next/react"
 * export function Greeting() {
 *   const { data, status } = useSession()
 *   if (status === "loading") return null
 *   return data ? <p>Hi {data.user?.name}</p> : <button onClick={() => signIn()}>Sign in</button>
 * }
 * ```
 * @module
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react"
import { createAuthClient, type AuthorizationParams, type SignInOptions as CoreSignInOptions } from "@portcullis/core/client"
import type { PublicProvider, Session } from "@portcullis/core"

export type { AuthorizationParams, SessionState } from "@portcullis/core/client"
export type { Session } from "@portcullis/core"

/** Options of {@link signIn}: where to land, whether to navigate, and credential fields. */
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
  /** `true` only when it worked (next-auth also said `true` for a refused password). */
  ok: boolean
  /** Where the server would have sent the browser; `null` on error. */
  url: string | null
}

/** Options of {@link signOut}. */
export interface SignOutOptions {
  /** Where to land afterwards; default: the current page. */
  redirectTo?: string
  /** next-auth v4 name of `redirectTo`. */
  callbackUrl?: string
  /** `false` stays on the page and resolves to `{ url }`. */
  redirect?: boolean
}

// The browser calls are core's (`@portcullis/core/client`); this module adds what React and
// next-auth users expect: a base path set by SessionProvider, and tabs kept in step.
let basePath = "/api/auth"
let client = clientFor(basePath)
const listeners = new Set<() => void>()
let channel: BroadcastChannel | null | undefined

function clientFor(path: string) {
  return createAuthClient({ basePath: path, onSessionChange: notifySessionChange })
}

function setBasePath(path: string): void {
  const trimmed = path.replace(/\/+$/, "")
  if (trimmed !== basePath) client = clientFor((basePath = trimmed))
}

function broadcast(): BroadcastChannel | undefined {
  channel ??= typeof BroadcastChannel === "undefined" ? null : new BroadcastChannel("portcullis.session")
  return channel ?? undefined
}

/** Tells this tab's providers and the other tabs; the message carries no data, each tab refetches its own. */
function notifySessionChange(): void {
  for (const listener of listeners) listener()
  broadcast()?.postMessage({ event: "session" })
}

function onSessionChange(listener: () => void): () => void {
  const bc = broadcast()
  const onMessage = () => listener()
  listeners.add(listener)
  bc?.addEventListener("message", onMessage)
  return () => {
    listeners.delete(listener)
    bc?.removeEventListener("message", onMessage)
  }
}

function navigate(url: string): void {
  window.location.href = url
  // A URL that differs only by its #fragment does not load the page.
  if (url.includes("#")) window.location.reload()
}

/** The current session, or `null` (also when the server could not be asked; see {@link getSessionState}). */
export const getSession = (): Promise<Session | null> => client.getSession()

/**
 * The session, telling "signed out" from "could not be asked": `{ session }` (`null` when
 * signed out), or `{ unavailable: true }` when the server answered `503` (its session store
 * is down) or could not be reached. `SessionProvider` keeps the last known session then.
 *
 * @example
 * ```ts
 * const state = await getSessionState()
 * if ("unavailable" in state) showBanner("Sign-in service unavailable, retrying…")
 * ```
 */
export const getSessionState = () => client.getSessionState()

/** The CSRF token to send with a hand-built POST to the auth endpoints. */
export const getCsrfToken = (): Promise<string> => client.getCsrfToken()

/** The configured providers, by id, as `GET <basePath>/providers` lists them. */
export const getProviders = (): Promise<Record<string, PublicProvider> | null> => client.getProviders()

/**
 * Signs in from the browser. Without a provider (or with an unknown one) it opens the
 * sign-in page; OAuth/OIDC go to the provider. Credentials and email post the fields and
 * navigate, or with `redirect: false` resolve to a {@link SignInResponse}.
 *
 * @example
 * ```tsx
 * <button onClick={() => signIn("github", { redirectTo: "/dashboard" })}>Sign in with GitHub</button>
 * const result = await signIn("credentials", { username, password, redirect: false })
 * if (result?.error) setMessage("Wrong username or password")
 * ```
 */
export async function signIn(provider?: string, options: SignInOptions = {}, authorizationParams?: AuthorizationParams): Promise<SignInResponse | undefined> {
  const { redirectTo, callbackUrl, redirect = true, ...fields } = options
  const result = await client.signIn(provider, { ...fields, redirectTo: redirectTo ?? callbackUrl, redirect: false } as CoreSignInOptions, authorizationParams)
  if (!result) return undefined // it went to the sign-in page
  const canStay = result.providerType === "credentials" || result.providerType === "email"
  if (redirect || !canStay) {
    navigate(result.url)
    return undefined
  }
  return { error: result.error, code: result.code, status: result.status, ok: result.ok, url: result.error ? null : result.url }
}

/**
 * Signs out (CSRF-protected POST), tells the other tabs, and navigates to `redirectTo`
 * (default: the current page), or with `redirect: false` resolves to `{ url }`.
 */
export async function signOut(options: SignOutOptions = {}): Promise<{ url: string } | undefined> {
  const result = await client.signOut({ redirectTo: options.redirectTo ?? options.callbackUrl, redirect: options.redirect !== false })
  return result && { url: result.url }
}

/** What {@link useSession} returns. */
export type SessionContextValue<R extends boolean = false> = {
  /** Sends `data` to the `jwt`/`session` callbacks (`trigger: "update"`); resolves to the new session. */
  update(data?: unknown): Promise<Session | null>
} & (
  | { data: Session; status: "authenticated" }
  | { data: R extends true ? Session | null : null; status: "unauthenticated" | "loading" }
)

/** Props of {@link SessionProvider}. */
export interface SessionProviderProps {
  children: ReactNode
  /**
   * The session from the server (`await auth()` in a Server Component): no fetch on load.
   * `undefined` fetches it; `null` means known to be signed out.
   */
  session?: Session | null
  /** Where the auth routes are mounted. Default `/api/auth`. */
  basePath?: string
  /** Seconds between background refetches; 0 (default) never. */
  refetchInterval?: number
  /** Refetch when the tab becomes visible again. Default `true`. */
  refetchOnWindowFocus?: boolean
  /** Also refetch on the interval while the browser is offline. Default `false`. */
  refetchWhenOffline?: boolean
}

const SessionContext = createContext<SessionContextValue<boolean> | undefined>(undefined)

/**
 * Holds the session for the components below it and keeps it fresh: on load (unless the
 * server passed it), when the tab becomes visible, every `refetchInterval` seconds, and when
 * any tab signs in, signs out or updates the session.
 */
export function SessionProvider({ children, session: initial, basePath = "/api/auth", refetchInterval = 0, refetchOnWindowFocus = true, refetchWhenOffline = false }: SessionProviderProps) {
  setBasePath(basePath)
  const [session, setSession] = useState<Session | null>(initial ?? null)
  const [loading, setLoading] = useState(initial === undefined)
  // Answers can arrive out of order (a slow focus refetch after an update); only the latest counts.
  const generation = useRef(0)

  const refetch = useCallback(async () => {
    const mine = ++generation.current
    const fresh = await getSessionState()
    if (mine !== generation.current) return
    // An outage is not a sign-out: keep what we knew rather than flip to "unauthenticated".
    if ("session" in fresh) setSession(fresh.session)
    setLoading(false)
  }, [])

  useEffect(() => {
    if (initial === undefined) void refetch()
    else setSession(initial)
  }, [initial, refetch])

  useEffect(() => onSessionChange(() => void refetch()), [refetch])

  useEffect(() => {
    if (!refetchOnWindowFocus) return
    const onVisible = () => {
      if (document.visibilityState === "visible") void refetch()
    }
    document.addEventListener("visibilitychange", onVisible)
    return () => document.removeEventListener("visibilitychange", onVisible)
  }, [refetchOnWindowFocus, refetch])

  useEffect(() => {
    if (!refetchInterval) return
    const timer = setInterval(() => {
      if (refetchWhenOffline || navigator.onLine !== false) void refetch()
    }, refetchInterval * 1000)
    return () => clearInterval(timer)
  }, [refetchInterval, refetchWhenOffline, refetch])

  const update = useCallback(async (data?: unknown) => {
    const mine = ++generation.current
    setLoading(true)
    const fresh = await client.updateSession(data)
    if (mine === generation.current) {
      if (fresh) setSession(fresh)
      setLoading(false)
    }
    return fresh
  }, [])

  const value = useMemo(
    () =>
      ({
        data: session,
        status: loading ? "loading" : session ? "authenticated" : "unauthenticated",
        update,
      }) as SessionContextValue<boolean>,
    [session, loading, update],
  )
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>
}

/** Options of {@link useSession}. */
export interface UseSessionOptions<R extends boolean> {
  /** Signed-out users are sent away (to the sign-in page, or `onUnauthenticated`). */
  required?: R
  /** Runs instead of the redirect when `required` and signed out. */
  onUnauthenticated?: () => void
}

/**
 * The session and its status inside a {@link SessionProvider}. With `required: true`, a
 * signed-out user is sent to the sign-in page (`?error=SessionRequired&callbackUrl=…`) and
 * the status stays `"loading"` meanwhile, so the page never renders signed-out content.
 *
 * @example
 * ```tsx
 * const { data: session, status, update } = useSession({ required: true })
 * <button onClick={() => update({ name: "Ada" })}>Rename</button>
 * ```
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
