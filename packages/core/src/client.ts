/**
 * Browser-side sign-in and sign-out over the HTTP endpoints, for any integration.
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
}

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
  const action = type === "credentials" ? "callback" : "signin"
  const query = authorizationParams ? `?${new URLSearchParams(authorizationParams)}` : ""
  const body = new URLSearchParams()
  for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== null) body.set(k, String(v))
  body.set("csrfToken", csrfToken)
  body.set("callbackUrl", callbackUrl)
  return post(`${base}/${action}/${encodeURIComponent(provider)}${query}`, body, redirect)
}

/** Signs out (the server deletes the session) and goes to `redirectTo` or reloads the page. */
export async function signOut(options: ClientOptions = {}): Promise<AuthResult | undefined> {
  const { basePath = "/auth", redirectTo, redirect = true } = options
  const base = trimSlash(basePath)
  const body = new URLSearchParams({ csrfToken: await fetchCsrfToken(base), callbackUrl: redirectTo ?? window.location.href })
  return post(`${base}/signout`, body, redirect)
}

async function post(path: string, body: URLSearchParams, redirect: boolean): Promise<AuthResult | undefined> {
  const response = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Auth-Return-Redirect": "1" },
    body,
  })
  const data = (await response.json().catch(() => null)) as { url?: unknown } | null
  const url = typeof data?.url === "string" ? data.url : new URL(path, window.location.href).href
  if (redirect) {
    navigate(url)
    return undefined
  }
  const params = new URL(url, window.location.href).searchParams
  const error = params.get("error") ?? undefined
  return { url, error, code: error ? (params.get("code") ?? undefined) : undefined, ok: response.ok && !error, status: response.status }
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

/** `signIn` and `signOut` whose `basePath` defaults to `defaults.basePath`. */
export function createAuthClient(defaults: { basePath: string }) {
  return {
    signIn: (provider?: string, options: SignInOptions = {}, authorizationParams?: AuthorizationParams) =>
      signIn(provider, { basePath: defaults.basePath, ...options }, authorizationParams),
    signOut: (options: ClientOptions = {}) => signOut({ basePath: defaults.basePath, ...options }),
  }
}
