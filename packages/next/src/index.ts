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
import { Auth } from "@portcullis/core"
import type { NextRequest } from "next/server"
import { createActions, type SignIn, type SignOut, type Update } from "./lib/actions.js"
import { createAuth, type AuthFunction } from "./lib/auth.js"
import { prepareConfig, type NextAuthConfigInput } from "./lib/config.js"

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
 * Sets Portcullis up for a Next.js app.
 *
 * `config` is the core configuration (`basePath` defaults to `/api/auth`), or a function
 * returning it, possibly async, to vary it per request: the function receives the
 * `NextRequest` in route handlers, `auth(req)` and the proxy, and `undefined` in Server
 * Components and Server Actions. It is called on every use; return the same object for the
 * same settings and Portcullis resolves it only once.
 *
 * Environment: `AUTH_SECRET` (or `NEXTAUTH_SECRET`; `AUTH_SECRET_1..3` for rotation),
 * `AUTH_URL` (optional: when set, its origin replaces the request's, and a path in it sets
 * `basePath`), `AUTH_TRUST_HOST`, `AUTH_<PROVIDER>_ID`/`_SECRET`/`_ISSUER`.
 *
 * @example
 * ```ts
 * import NextAuth from "@portcullis/next"
 * import Credentials from "@portcullis/next/providers/credentials"
 *
 * export const { handlers, auth, signIn, signOut } = NextAuth((request) => ({
 *   providers: [Credentials({ authorize: checkPassword })],
 *   theme: request?.headers.get("x-brand") === "night" ? night : day, // two constant objects
 * }))
 * ```
 */
export default function NextAuth(config: NextAuthConfigInput): NextAuthResult {
  const handler: AppRouteHandler = async (request) => Auth(request, (await prepareConfig(config, request)).handler)
  return {
    handlers: { GET: handler, POST: handler },
    auth: createAuth(config),
    ...createActions(config),
  }
}

export { NextAuth }
