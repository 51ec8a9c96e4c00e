// What the chaos load and the multi-instance test do over HTTP: session checks, credential
// sign-ins and sign-outs against a Portcullis app, each recorded with its status and time.

/** The session cookie's name on plain http (Auth.js's name). */
export const SESSION_COOKIE = "authjs.session-token"

/** One request: what it was, when, and how it ended. */
export interface Outcome {
  kind: string
  start: number
  end: number
  /** The HTTP status, or `fetch-error` / `timeout` when no answer came. */
  status: number | "fetch-error" | "timeout"
  /** A 500 whose body shows a stack trace (`at fn (file:line:col)`). */
  stack500?: boolean
}

const STACK = /\bat [^\n]*\(?[^\s()]+:\d+:\d+\)?/

/** Cookies from `Set-Cookie` headers: name → value, `""` for a deleted cookie. */
export function setCookies(response: Response): Map<string, string> {
  const cookies = new Map<string, string>()
  for (const header of response.headers.getSetCookie()) {
    const [pair = "", ...attributes] = header.split(";")
    const eq = pair.indexOf("=")
    const deleted = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a))
    cookies.set(pair.slice(0, eq).trim(), deleted ? "" : decodeURIComponent(pair.slice(eq + 1).trim()))
  }
  return cookies
}

/** A request to one app that never throws: failures become an {@link Outcome}. */
export async function call(
  base: string,
  kind: string,
  path: string,
  init: { cookies?: Map<string, string>; form?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ outcome: Outcome; response?: Response; body: string }> {
  const headers = new Headers({ origin: base })
  if (init.cookies?.size) headers.set("cookie", [...init.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("; "))
  let body: string | undefined
  if (init.form) {
    headers.set("content-type", "application/x-www-form-urlencoded")
    body = new URLSearchParams(init.form).toString()
  }
  const start = Date.now()
  try {
    const response = await fetch(base + path, {
      method: body ? "POST" : "GET",
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(init.timeoutMs ?? 30_000),
    })
    const text = await response.text()
    const outcome: Outcome = { kind, start, end: Date.now(), status: response.status }
    if (response.status === 500 && STACK.test(text)) outcome.stack500 = true
    return { outcome, response, body: text }
  } catch (error) {
    const timeout = (error as Error).name === "TimeoutError"
    return { outcome: { kind, start, end: Date.now(), status: timeout ? "timeout" : "fetch-error" }, body: "" }
  }
}

/** The user of a session cookie, or `null` (signed out, expired, unknown, or the store is down). */
export async function sessionUser(base: string, token: string, kind = "session"): Promise<{ outcome: Outcome; user: { name?: string; email?: string } | null }> {
  const { outcome, body } = await call(base, kind, "/auth/session", { cookies: new Map([[SESSION_COOKIE, token]]) })
  let user = null
  if (outcome.status === 200) {
    try {
      user = (JSON.parse(body) as { user?: { name?: string } } | null)?.user ?? null
    } catch {}
  }
  return { outcome, user }
}

/** A CSRF token and the cookie it is bound to (the double-submit pair). */
async function csrf(base: string, cookies: Map<string, string>, outcomes: Outcome[]): Promise<string | undefined> {
  const { outcome, response, body } = await call(base, "csrf", "/auth/csrf", { cookies })
  outcomes.push(outcome)
  if (!response?.ok) return undefined
  for (const [k, v] of setCookies(response)) cookies.set(k, v)
  return (JSON.parse(body) as { csrfToken: string }).csrfToken
}

/** Signs in with the credentials provider; the session token, or `undefined` when refused or failed. */
export async function signIn(base: string, username: string, password: string, outcomes: Outcome[] = []): Promise<string | undefined> {
  const cookies = new Map<string, string>()
  const csrfToken = await csrf(base, cookies, outcomes)
  if (!csrfToken) return undefined
  const { outcome, response } = await call(base, "sign-in", "/auth/callback/credentials", { cookies, form: { username, password, csrfToken } })
  outcomes.push(outcome)
  return response ? setCookies(response).get(SESSION_COOKIE) || undefined : undefined
}

/**
 * Signs a session out. `claimedSuccess`: the app said the session ended — a redirect to a
 * page that is not an error page, or the session cookie cleared.
 */
export async function signOut(base: string, token: string, outcomes: Outcome[] = []): Promise<{ claimedSuccess: boolean }> {
  const cookies = new Map([[SESSION_COOKIE, token]])
  const csrfToken = await csrf(base, cookies, outcomes)
  if (!csrfToken) return { claimedSuccess: false }
  const { outcome, response } = await call(base, "sign-out", "/auth/signout", { cookies, form: { csrfToken } })
  outcomes.push(outcome)
  if (!response) return { claimedSuccess: false }
  const location = response.headers.get("location") ?? ""
  const redirectedOk = response.status === 302 && !/[/?&]error\b|\/error/.test(location)
  const cleared = setCookies(response).get(SESSION_COOKIE) === ""
  return { claimedSuccess: redirectedOk || cleared }
}

/** Asks for a magic link for `email` (`POST /auth/signin/email`); true when the app accepted. */
export async function requestMagicLink(base: string, email: string, outcomes: Outcome[] = []): Promise<boolean> {
  const cookies = new Map<string, string>()
  const csrfToken = await csrf(base, cookies, outcomes)
  if (!csrfToken) return false
  const { outcome, response } = await call(base, "magic-link", "/auth/signin/email", { cookies, form: { email, csrfToken } })
  outcomes.push(outcome)
  return response?.status === 302 && !/error/.test(response.headers.get("location") ?? "")
}

/** Opens a magic link (its path and query) on `base`; the session token it set, if any. */
export async function openMagicLink(base: string, link: string): Promise<string | undefined> {
  const { pathname, search } = new URL(link)
  const { response } = await call(base, "magic-link-open", pathname + search)
  return response ? setCookies(response).get(SESSION_COOKIE) || undefined : undefined
}
