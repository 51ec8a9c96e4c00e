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
import type { Session } from "@portcullis/core"
import { getBasePath, getSessionState, onSessionChange, setBasePath, updateSession } from "./client.js"

export { getCsrfToken, getProviders, getSession, getSessionState, signIn, signOut } from "./client.js"
export type { AuthorizationParams, SignInOptions, SignInResponse, SignOutOptions } from "./client.js"
export type { Session } from "@portcullis/core"

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
    const fresh = await updateSession(data)
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
    window.location.href = `${getBasePath()}/signin?${params}`
  }, [mustLeave, onUnauthenticated])

  if (mustLeave) return { data: value.data, status: "loading", update: value.update } as SessionContextValue<R>
  return value as SessionContextValue<R>
}
