import { raw, setEnvDefaults, skipCSRFCheck, type AuthConfig, type Awaitable, type CallbacksOptions, type Session } from "@portcullis/core"
import type { NextRequest } from "next/server"

/** The configuration of {@link NextAuth}: the core configuration, `basePath` defaulting to `/api/auth`. */
export type NextAuthConfig = Omit<AuthConfig, "raw">

/**
 * What `NextAuth` accepts: a config, or a function building one per request. The function
 * gets the incoming request in route handlers and the proxy, and `undefined` where Next has
 * no request object (Server Components, Server Actions).
 */
export type NextAuthConfigInput = NextAuthConfig | ((request: NextRequest | undefined) => Awaitable<NextAuthConfig>)

/**
 * One app config seen three ways. Each variant is a stable object, so core resolves it once
 * (its cache is keyed by object identity) instead of on every request.
 */
export interface PreparedConfig {
  /** Env defaults applied; what the route handlers serve. */
  handler: NextAuthConfig & { basePath: string }
  /** For `auth()`: session callback shaped for server code. */
  session: NextAuthConfig & { basePath: string }
  /** For server actions: internal responses, AuthErrors rethrown, CSRF left to Next. */
  action: AuthConfig & { basePath: string; raw: typeof raw }
}

type Env = Record<string, string | undefined>

const prepared = new WeakMap<NextAuthConfig, PreparedConfig>()

/**
 * Resolves the app's config input for one call. A config function runs every time (it may
 * answer differently per request); when it returns an object it returned before, the
 * prepared variants are reused.
 */
export async function prepareConfig(input: NextAuthConfigInput, request: NextRequest | undefined, env: Env = process.env): Promise<PreparedConfig> {
  const config = typeof input === "function" ? await input(request) : input
  let found = prepared.get(config)
  if (!found) {
    found = prepare(config, env)
    prepared.set(config, found)
  }
  return found
}

function prepare(config: NextAuthConfig, env: Env): PreparedConfig {
  // A copy: setEnvDefaults writes into its argument, and the app's object is not ours.
  const handler = { ...config, callbacks: { ...config.callbacks } } as NextAuthConfig & { basePath: string }
  handler.basePath = config.basePath || basePathFromEnv(env) || "/api/auth"
  // Secrets (AUTH_SECRET_3..1, AUTH_SECRET, NEXTAUTH_SECRET), trustHost, provider
  // credentials from AUTH_<ID>_*: the same rules as every other integration.
  setEnvDefaults(env, handler, true)
  const session = { ...handler, callbacks: { ...handler.callbacks, session: serverSessionCallback(handler.callbacks?.session) } }
  return { handler, session, action: { ...session, raw, skipCSRFCheck } }
}

/** The path of `AUTH_URL` (or `NEXTAUTH_URL`) when it has one beyond `/`. */
function basePathFromEnv(env: Env): string | undefined {
  const url = env.AUTH_URL || env.NEXTAUTH_URL
  if (!url) return undefined
  try {
    const path = new URL(url).pathname.replace(/\/+$/, "")
    return path || undefined
  } catch {
    // Core reports an unparsable AUTH_URL on the first request, with the variable named.
    return undefined
  }
}

/**
 * The session as server code sees it, as next-auth shapes it: the app's session callback
 * result, with `user` filled from the database user (or the token) when the callback left
 * it out. Unlike next-auth, the database row's `sessionToken` is dropped: a session handed
 * from a Server Component to a Client Component ends up in the HTML, and that value is the
 * bearer credential.
 */
function serverSessionCallback(appCallback: CallbacksOptions["session"] | undefined): CallbacksOptions["session"] {
  return async (params) => {
    const { sessionToken: _bearer, ...session } = params.session as Session & { sessionToken?: string }
    const result = appCallback ? await appCallback(params) : session
    return { user: params.user ?? params.token, ...result } as Session
  }
}
