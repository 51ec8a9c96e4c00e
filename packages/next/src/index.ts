/**
 * Portcullis for Next.js (App Router and Pages Router), configured like next-auth v5; see
 * `docs/next.md`.
 *
 * @example
 * ```ts
 * // auth.ts
 * export const { handlers, auth, signIn, signOut, unstable_update } = NextAuth({ providers: [GitHub] })
 * // app/api/auth/[...nextauth]/route.ts: export const { GET, POST } = handlers
 * // proxy.ts: export { auth as proxy } from "@/auth"
 * ```
 * @module
 */
import type { NextRequest } from "next/server"
import { createActions, type SignIn, type SignOut, type Update } from "./lib/actions.js"
import { createAuth, type AuthFunction } from "./lib/auth.js"
import { appFor, type NextAuthConfigInput } from "./lib/config.js"
import { createSessionManagement, type SessionManagement } from "./lib/sessions.js"
import { createGetAccessToken, type GetAccessToken } from "./lib/access-token.js"
import { createResetTwoFactor, type ResetTwoFactor } from "./lib/recovery.js"
import { createHealth, type Health } from "./lib/health.js"
import { createAuditTrail, createPruneAuditTrail, type AuditTrail, type PruneAuditTrail } from "./lib/audit.js"
import { createExtensions, type Extensions } from "./lib/extensions.js"
import type { Awaitable } from "@portcullis/core"
import type { NextAuthConfig } from "./lib/config.js"

export type { NextAuthConfig, NextAuthConfigInput } from "./lib/config.js"
export type { AuthFunction, NextAuthCallback, NextAuthRequest, PagesContext, PagesRequest, PagesResponse } from "./lib/auth.js"
export type { GetAccessToken, GetAccessTokenOptions } from "./lib/access-token.js"
export type { ResetTwoFactor } from "./lib/recovery.js"
export type { TwoFactorResetInput, TwoFactorResetResult } from "@portcullis/core/integration"
export type { Health } from "./lib/health.js"
export type { HealthCheckOptions, HealthReport, HealthStatus, StoreCheck } from "@portcullis/core/integration"
export type { AuditTrail, PruneAuditTrail } from "./lib/audit.js"
export type { AuditPage, AuditQuery } from "@portcullis/core/integration"
export type { AuditEvent, AuditEventType } from "@portcullis/core/types"
export { AuditTrailUnsupported, InvalidAuditQuery } from "@portcullis/core/errors"
export type { AccessToken } from "@portcullis/core"
export type { Extensions } from "./lib/extensions.js"
export type { Extension, ExtensionCall, ExtensionFunctions } from "@portcullis/core/extension"
export { ReauthRequired, TokenRefreshFailed } from "@portcullis/core/errors"
export type { AuthorizationParams, SignIn, SignInOptions, SignOut, SignOutOptions, Update } from "./lib/actions.js"
export type { SessionManagement } from "./lib/sessions.js"
export type { Account, DefaultSession, Profile, Session, SessionInfo, User } from "@portcullis/core"
export { AuthError, CredentialsSignin, NotSignedIn, ServiceUnavailable, SessionManagementUnsupported } from "@portcullis/core/errors"
export { customFetch } from "@portcullis/core"

/** A route handler of the App Router. */
export type AppRouteHandler = (request: NextRequest) => Promise<Response>

/**
 * What {@link NextAuth} returns: the route `handlers`, `auth` in every form, and the server
 * actions. `E` is the configuration's `extensions`, which types {@link NextAuthResult.extensions}.
 */
export interface NextAuthResult<E extends NextAuthConfig["extensions"] = NextAuthConfig["extensions"]> {
  handlers: { GET: AppRouteHandler; POST: AppRouteHandler }
  auth: AuthFunction
  signIn: SignIn
  signOut: SignOut
  unstable_update: Update
  /**
   * The signed-in user's sessions, listed and revoked (`docs/sessions.md`): `sessions.list()`
   * in a Server Component, `sessions.revoke(id)`, `revokeOthers()`, `signOutEverywhere()` in
   * Server Actions.
   */
  sessions: SessionManagement
  /** Portcullis: a valid provider access token of the signed-in user, refreshed when due (`docs/tokens.md`). */
  getAccessToken: GetAccessToken
  /** Portcullis: account recovery for support staff — removes a user's second factor (`docs/two-factor.md`, "Lost your authenticator"). */
  resetTwoFactor: ResetTwoFactor
  /** Portcullis: how the app's stores answer, for load balancers and Kubernetes probes (`docs/observability.md`, "Health checks"). */
  health: Health
  /** Portcullis: one page of the stored audit trail, by user, type and time (`docs/observability.md`, "Storing the audit trail"). */
  auditTrail: AuditTrail
  /** Portcullis: deletes the stored audit records older than `audit.retention` now, for a scheduled job. */
  pruneAuditTrail: PruneAuditTrail
  /**
   * Portcullis: the configured extensions' server functions, by extension id, bound to this
   * request (`docs/extensions.md`): `const { organizations } = await extensions()` in Server
   * Components and Server Actions, `await extensions(request)` in Route Handlers.
   */
  extensions: Extensions<E>
}

/**
 * Sets Portcullis up for a Next.js app. `config` is the core configuration (`basePath`
 * defaults to `/api/auth`), or a function returning it, possibly async, called on every use
 * with the `NextRequest` (route handlers, the proxy, `auth(fn)`) or `undefined` (Server
 * Components, Server Actions). Return the same object for the same settings: each config
 * object gets one runtime, resolved once, that serves every form of the result. Environment:
 * `AUTH_SECRET`, `AUTH_URL`, `AUTH_TRUST_HOST`, `AUTH_<PROVIDER>_ID`/`_SECRET` (`docs/next.md`).
 */
export default function NextAuth<C extends NextAuthConfig>(config: C | ((request: NextRequest | undefined) => Awaitable<C>)): NextAuthResult<C["extensions"]> {
  const handler: AppRouteHandler = async (request) => (await appFor(config, request)).runtime.handle(request)
  return {
    handlers: { GET: handler, POST: handler },
    auth: createAuth(config),
    ...createActions(config),
    sessions: createSessionManagement(config),
    getAccessToken: createGetAccessToken(config),
    resetTwoFactor: createResetTwoFactor(config),
    health: createHealth(config),
    auditTrail: createAuditTrail(config),
    pruneAuditTrail: createPruneAuditTrail(config),
    extensions: createExtensions<C["extensions"]>(config),
  }
}

export { NextAuth }
