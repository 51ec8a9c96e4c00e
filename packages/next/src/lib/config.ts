import { createAuth, setEnvDefaults, type AuthConfig, type AuthRuntime, type Awaitable, type CallbacksOptions, type Session, type SessionCallbackParams } from "@portcullis/core"
import type { NextRequest } from "next/server"

/**
 * The configuration of {@link NextAuth}: the core configuration, `basePath` defaulting to
 * `/api/auth`, with `callbacks.authorized` seeing a `NextRequest` (`request.nextUrl`, `request.cookies`).
 *
 * @example
 * ```ts
 * const config = {
 *   providers: [GitHub],
 *   callbacks: { authorized: ({ request, auth }) => !!auth || request.nextUrl.pathname === "/" },
 * } satisfies NextAuthConfig
 * ```
 */
export interface NextAuthConfig extends Omit<AuthConfig, "raw" | "callbacks"> {
  callbacks?: Omit<NonNullable<AuthConfig["callbacks"]>, "authorized"> & {
    /**
     * Run by the proxy (`export { auth as proxy }`) and `auth(fn)` for each request: `true`
     * lets it through, falsy sends the user to sign in, a `Response` is the answer.
     */
    authorized?: (params: { request: NextRequest; auth: Session | null }) => Awaitable<unknown>
  }
}

/** A config, or a function building one per request (`undefined` in Server Components and Server Actions). */
export type NextAuthConfigInput = NextAuthConfig | ((request: NextRequest | undefined) => Awaitable<NextAuthConfig>)

/** An app config as core sees it: one object (env defaults applied), so one runtime serves every call. */
export interface App {
  config: NextAuthConfig & { basePath: string }
  runtime: AuthRuntime
}

type Env = Record<string, string | undefined>
const apps = new WeakMap<NextAuthConfig, App>()

/** The {@link App} of the config `input` gives for this call (a config function runs every time). */
export async function appFor(input: NextAuthConfigInput, request: NextRequest | undefined, env: Env = process.env): Promise<App> {
  const config = typeof input === "function" ? await input(request) : input
  let app = apps.get(config)
  if (!app) {
    // A copy, made once: setEnvDefaults writes into its argument, and the app's object is not ours.
    const basePath = config.basePath || basePathFromEnv(env) || "/api/auth"
    const own = { ...config, basePath, callbacks: { ...config.callbacks, session: sessionCallback(config.callbacks?.session) } }
    setEnvDefaults(env, own, true)
    app = { config: own, runtime: createAuth(own) }
    apps.set(config, app)
  }
  return app
}

/** The path of `AUTH_URL` beyond `/` (an unparsable one is reported by core, with the variable named). */
function basePathFromEnv(env: Env): string | undefined {
  const url = env.AUTH_URL || env.NEXTAUTH_URL
  return (url && URL.canParse(url) && new URL(url).pathname.replace(/\/+$/, "")) || undefined
}

/** The part of `AsyncLocalStorage` used here. */
interface CallStore {
  run<T>(store: true, fn: () => Promise<T>): Promise<T>
  getStore(): true | undefined
}
type CallStoreClass = new () => CallStore

/**
 * `AsyncLocalStorage` without importing `node:async_hooks`, so the proxy (middleware) bundle
 * for Next's edge runtime carries no `node:` import: Next puts the class on `globalThis` in
 * both of its runtimes (the edge sandbox, and `node-environment-baseline` on Node); outside
 * Next (a script, a test) Node, Bun and Deno hand it out through `process.getBuiltinModule`,
 * which no bundler follows. A runtime with neither cannot tell server calls from browser
 * ones, so server calls fail loudly rather than shape sessions the browser's way.
 */
function callStoreClass(): CallStoreClass | undefined {
  const global = globalThis as { AsyncLocalStorage?: CallStoreClass; process?: { getBuiltinModule?: (id: string) => { AsyncLocalStorage?: CallStoreClass } | undefined } }
  return global.AsyncLocalStorage ?? global.process?.getBuiltinModule?.("node:async_hooks")?.AsyncLocalStorage
}

const Store = callStoreClass()
const serverSide: CallStore | undefined = Store && new Store()

/** Runs a call of server code (`auth()`, the actions): the session callback then shapes the session for the server. */
export function onServer<T>(fn: () => Promise<T>): Promise<T> {
  if (!serverSide) {
    return Promise.reject(new Error("@portcullis/next needs AsyncLocalStorage (globalThis.AsyncLocalStorage, as Next.js provides, or node:async_hooks) to read the session from server code"))
  }
  return serverSide.run(true, fn)
}

/**
 * Browsers get what the app's session callback (or core's default) makes. Server code gets
 * next-auth's shape: that, with `user` filled from the database user (or the token) when the
 * callback left it out, and without the database `sessionToken`: a session passed from a
 * Server Component to `SessionProvider` ends up in the HTML, and that value is the bearer
 * credential.
 */
function sessionCallback(app: CallbacksOptions["session"] | undefined): CallbacksOptions["session"] {
  return async (params) => {
    if (!serverSide?.getStore()) return app ? app(params) : coreDefault(params)
    const { sessionToken: _bearer, ...session } = params.session as Session & { sessionToken?: string }
    const result = app ? await app(params) : session
    return { user: params.user ?? params.token, ...result } as Session
  }
}

/** What core answers without a session callback: JWT sessions arrive in that shape; database ones carry the row and user. */
function coreDefault({ session, user }: SessionCallbackParams): Session {
  return user ? { user: { name: user.name, email: user.email, image: user.image }, expires: session.expires } : session
}
