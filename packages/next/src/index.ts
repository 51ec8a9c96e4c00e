/**
 * Portcullis for Next.js (App Router and Pages Router), configured like next-auth v5.
 *
 * Create one `auth.ts` and import its members everywhere:
 *
 * @example
 * ```ts
 * // auth.ts
 * import NextAuth from "@portcullis/next"
 * import GitHub from "@portcullis/next/providers/github"
 *
 * export const { handlers, auth, signIn, signOut, unstable_update } = NextAuth({
 *   providers: [GitHub], // AUTH_GITHUB_ID / AUTH_GITHUB_SECRET from the environment
 *   callbacks: { authorized: ({ auth }) => !!auth }, // used by the proxy below
 * })
 *
 * // app/api/auth/[...nextauth]/route.ts
 * export const { GET, POST } = handlers
 *
 * // proxy.ts (Next 16; middleware.ts with `export { auth as middleware }` on Next 15)
 * export { auth as proxy } from "./auth"
 * export const config = { matcher: ["/dashboard/:path*"] }
 *
 * // app/page.tsx (a Server Component)
 * const session = await auth()
 * ```
 * @module
 */
import type { NextRequest } from "next/server"
import { createActions, type SignIn, type SignOut, type Update } from "./lib/actions.js"
import { createAuth, type AuthFunction } from "./lib/auth.js"
import { appFor, type NextAuthConfigInput } from "./lib/config.js"

export type { NextAuthConfig, NextAuthConfigInput } from "./lib/config.js"
export type { AuthFunction, NextAuthCallback, NextAuthRequest, PagesContext, PagesRequest, PagesResponse } from "./lib/auth.js"
export type { AuthorizationParams, SignIn, SignInOptions, SignOut, SignOutOptions, Update } from "./lib/actions.js"
export type { Account, DefaultSession, Profile, Session, User } from "@portcullis/core"
export { AuthError, CredentialsSignin, ServiceUnavailable } from "@portcullis/core/errors"

/** A route handler of the App Router. */
export type AppRouteHandler = (request: NextRequest) => Promise<Response>

/** What {@link NextAuth} returns. */
export interface NextAuthResult {
  /** Mount at `app/api/auth/[...nextauth]/route.ts`: `export const { GET, POST } = handlers`. */
  handlers: { GET: AppRouteHandler; POST: AppRouteHandler }
  /** The session, in every form Next.js code needs it; see {@link AuthFunction}. */
  auth: AuthFunction
  /** Server Action sign-in. */
  signIn: SignIn
  /** Server Action sign-out. */
  signOut: SignOut
  /** Server-side session update (`trigger: "update"`). */
  unstable_update: Update
}

/**
 * Sets Portcullis up for a Next.js app. `config` is the core configuration (`basePath`
 * defaults to `/api/auth`), or a function returning it, possibly async, called on every use
 * with the `NextRequest` (route handlers, the proxy, `auth(fn)`) or `undefined` (Server
 * Components, Server Actions). Return the same object for the same settings: each config
 * object gets one runtime, resolved once, that serves every form of the result.
 *
 * Environment: `AUTH_SECRET` (or `NEXTAUTH_SECRET`; `AUTH_SECRET_1..3` for rotation),
 * `AUTH_URL` (its origin replaces the request's; a path in it sets `basePath`),
 * `AUTH_TRUST_HOST`, `AUTH_<PROVIDER>_ID`/`_SECRET`/`_ISSUER`.
 */
export default function NextAuth(config: NextAuthConfigInput): NextAuthResult {
  const handler: AppRouteHandler = async (request) => (await appFor(config, request)).runtime.handle(request)
  return {
    handlers: { GET: handler, POST: handler },
    auth: createAuth(config),
    ...createActions(config),
  }
}

export { NextAuth }
