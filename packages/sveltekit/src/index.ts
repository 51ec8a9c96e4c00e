/**
 * Portcullis for SvelteKit.
 *
 * `SvelteKitAuth(config)` returns a `handle` hook that answers every request under the
 * base path (`/auth` by default) and gives each request `event.locals.auth()`, plus the
 * `signIn` and `signOut` form actions the `SignIn` and `SignOut` components post to.
 *
 * @example
 * ```ts
 * // src/auth.ts
 * import { SvelteKitAuth } from "@portcullis/sveltekit"
 * import GitHub from "@portcullis/core/providers/github"
 *
 * export const { handle, signIn, signOut } = SvelteKitAuth({ providers: [GitHub] })
 *
 * // src/hooks.server.ts
 * export { handle } from "./auth"
 *
 * // src/routes/signin/+page.server.ts
 * import { signIn } from "../../auth"
 * export const actions = { default: signIn }
 *
 * // src/routes/+layout.server.ts — pass csrfToken to <SignIn>/<SignOut> to have it checked
 * export const load = async (event) => ({ session: await event.locals.auth(), csrfToken: await event.locals.csrfToken() })
 * ```
 * @module
 */
import { error, redirect, type RequestEvent } from "@sveltejs/kit"
import type { AccessToken, AuthConfig, Cookie, Session } from "@portcullis/core"
import { InvalidRequest } from "@portcullis/core/errors"
import { extensionFunctions, originOfUrl, readAccessToken, readCsrfToken, readSession, runtimeFor, serverSignIn, serverSignOut, sessionManager, underBasePath, type AuthRuntime, type ExtensionFunctions, type SessionManager } from "@portcullis/core/integration"

export type { Account, DefaultSession, Profile, Session, SessionInfo, User } from "@portcullis/core"
export type { SessionManager } from "@portcullis/core/integration"
/** Account recovery for support staff (docs/two-factor.md, "Lost your authenticator"): `resetTwoFactor({ userId, reason, actor }, config)`. */
export { resetTwoFactor, type TwoFactorResetInput, type TwoFactorResetResult } from "@portcullis/core/integration"
/** Health checks for load balancers and Kubernetes probes (docs/observability.md, "Health checks"): `health(config)`, or `health: { endpoint: true }` for `GET <basePath>/health`. */
export { health, type HealthCheckOptions, type HealthReport, type HealthStatus, type StoreCheck } from "@portcullis/core/integration"
/** The stored audit trail (docs/observability.md, "Storing the audit trail"): `auditTrail(config, { userId, type, since, until, limit, cursor })`, and `pruneAuditTrail(config)` for a scheduled job. */
export { auditTrail, pruneAuditTrail, type AuditPage, type AuditQuery } from "@portcullis/core/integration"
export { AuditTrailUnsupported, InvalidAuditQuery } from "@portcullis/core/errors"
export { customFetch } from "@portcullis/core"
export { AuthError, CredentialsSignin, NotSignedIn, ReauthRequired, ServiceUnavailable, SessionManagementUnsupported, TokenRefreshFailed } from "@portcullis/core/errors"
export type { AccessToken } from "@portcullis/core"
export type { Extension, ExtensionCall, ExtensionFunctions } from "@portcullis/core/extension"

/** Configuration of {@link SvelteKitAuth}: the core configuration; `basePath` defaults to `/auth`. */
export type SvelteKitAuthConfig = Omit<AuthConfig, "raw">

/**
 * Where an app registers its configuration's type, so `event.locals.extensions()` is typed
 * from its `extensions` in every route (`App.Locals` is global and cannot be generic):
 *
 * @example
 * ```ts
 * // src/app.d.ts
 * import type { authConfig } from "$lib/auth"
 * declare module "@portcullis/sveltekit" {
 *   interface Register {
 *     config: typeof authConfig
 *   }
 * }
 * ```
 */
export interface Register {}

/** The configuration type the app registered in {@link Register}, else any configuration. */
export type RegisteredConfig = Register extends { config: infer C extends SvelteKitAuthConfig } ? C : SvelteKitAuthConfig

declare global {
  namespace App {
    interface Locals {
      /**
       * The session of this request, or `null` when signed out. Set by the Portcullis
       * `handle` hook. Throws `ServiceUnavailable` (from `@portcullis/core/errors`) when the
       * session store is down or slower than `adapterTimeout`: an outage is not a sign-out.
       * Rejects with a 400 `HttpError` when the request's host or protocol is malformed.
       */
      auth(): Promise<Session | null>
      /**
       * The browser's CSRF token (its cookie is set when new). Return it from a layout
       * `load` and pass it to `SignIn`/`SignOut`, whose form actions then have it checked.
       */
      csrfToken(): Promise<string>
      /**
       * The signed-in user's sessions, listed and revoked (`docs/sessions.md`): `list()` in a
       * `load`, `revoke(id, csrfToken?)`, `revokeOthers(csrfToken?)`,
       * `signOutEverywhere(csrfToken?)` in form actions.
       */
      sessions: SessionManager
      /**
       * Portcullis: a valid access token of the signed-in user's account with `provider`,
       * refreshed first when it expires within `tokenRefresh.skew` (one refresh however
       * many requests ask; a re-issued JWT session cookie is set on this response). Throws
       * `ReauthRequired` (sign in with the provider again) or `TokenRefreshFailed` (retry
       * later). See `docs/tokens.md`.
       *
       * @example
       * ```ts
       * const { accessToken } = await event.locals.getAccessToken("github")
       * ```
       */
      getAccessToken(provider: string): Promise<AccessToken>
      /**
       * Portcullis: the configured extensions' server functions, by extension id, bound to
       * this request (`docs/extensions.md`). Typed from the configuration registered in
       * `Register` (or the one given as `C`). A request that can change something (not
       * `GET`/`HEAD`) from another site is refused with `MissingCSRF` before any function runs.
       *
       * @example
       * ```ts
       * const { organizations } = await event.locals.extensions()
       * ```
       */
      extensions<C extends SvelteKitAuthConfig = RegisteredConfig>(): Promise<ExtensionFunctions<C["extensions"]>>
    }
  }
}

/**
 * SvelteKit's `handle` hook, written out: Kit 2 exports `Handle` from `@sveltejs/kit`, Kit 3
 * only from `@sveltejs/kit/hooks`, and this shape is assignable to both (use it as
 * `export const handle = auth.handle` or inside `sequence(…)`). The hook calls `resolve`
 * without options, so it asks for no more than that.
 */
export type Handle = (input: { event: RequestEvent; resolve: (event: RequestEvent) => Response | Promise<Response> }) => Promise<Response>

/** A SvelteKit form action that never returns: it redirects (303) or throws. */
export type AuthAction = (event: RequestEvent) => Promise<never>

export interface SvelteKitAuthResult {
  /** The `handle` hook: serves `<basePath>/*` and sets `event.locals.auth`. */
  handle: Handle
  /**
   * Form action for the sign-in page (`export const actions = { default: signIn }`).
   * Fields: `providerId`; `redirectTo`; `authorizationParams-<name>` (passed to the
   * provider's authorization URL); anything else (credentials) goes to the provider.
   */
  signIn: AuthAction
  /** Form action for the sign-out page. Field: `redirectTo`. */
  signOut: AuthAction
}

/**
 * Creates the SvelteKit integration.
 *
 * `config` may be a function of the request event (async allowed), called once per request,
 * to vary the configuration by request or read secrets from `$env/dynamic/private`.
 * Environment variables (`AUTH_SECRET`, `AUTH_URL`, `AUTH_<PROVIDER>_ID`…) are read from
 * `process.env` by core.
 */
export function SvelteKitAuth(config: SvelteKitAuthConfig | ((event: RequestEvent) => PromiseLike<SvelteKitAuthConfig> | SvelteKitAuthConfig)): SvelteKitAuthResult {
  // One runtime per configuration object serves the endpoints, `locals` and the form
  // actions; a config function that returns one shared object per app keeps using it.
  const fixed = typeof config === "function" ? undefined : runtimeFor(config)
  const perEvent = new WeakMap<RequestEvent, Promise<AuthRuntime>>()
  const runtimeOf = (event: RequestEvent): Promise<AuthRuntime> => {
    if (fixed) return Promise.resolve(fixed)
    let pending = perEvent.get(event)
    if (!pending) {
      pending = Promise.resolve((config as (event: RequestEvent) => PromiseLike<SvelteKitAuthConfig>)(event)).then(runtimeFor)
      perEvent.set(event, pending)
    }
    return pending
  }

  const handle: Handle = async ({ event, resolve }) => {
    const runtime = await runtimeOf(event)
    // `??=` so an app (or a test) can install its own before this hook runs.
    event.locals.auth ??= async () => readSession(siteOrigin(event), event.request.headers.get("cookie"), runtime, cookieSink(event))
    event.locals.csrfToken ??= async () => readCsrfToken(siteOrigin(event), event.request.headers.get("cookie"), runtime, cookieSink(event))
    // Built on first use: a malformed host is then that call's 400, not every page's.
    const manager = () => sessionManager(siteOrigin(event), event.request.headers, runtime, cookieSink(event))
    event.locals.sessions ??= {
      list: async () => manager().list(),
      revoke: async (id, csrfToken) => manager().revoke(id, csrfToken),
      revokeOthers: async (csrfToken) => manager().revokeOthers(csrfToken),
      signOutEverywhere: async (csrfToken) => manager().signOutEverywhere(csrfToken),
      // Step-up (docs/step-up.md) and two-factor enrollment, for the same session.
      stepUpStatus: async () => manager().stepUpStatus(),
      requireStepUp: async () => manager().requireStepUp(),
      reauthenticateUrl: (callbackUrl) => manager().reauthenticateUrl(callbackUrl),
      twoFactor: {
        status: async () => manager().twoFactor.status(),
        start: async (csrfToken, account) => manager().twoFactor.start(csrfToken, account),
        confirm: async (code, csrfToken) => manager().twoFactor.confirm(code, csrfToken),
        disable: async (code, csrfToken) => manager().twoFactor.disable(code, csrfToken),
        regenerateBackupCodes: async (code, csrfToken) => manager().twoFactor.regenerateBackupCodes(code, csrfToken),
      },
    }
    event.locals.getAccessToken ??= async (provider) => readAccessToken(siteOrigin(event), event.request.headers.get("cookie"), runtime, provider, cookieSink(event))
    // The request's method decides whether core refuses a cross-site call: a form action's
    // POST is a change (SvelteKit's `csrf.checkOrigin` refused cross-site ones first).
    event.locals.extensions ??= (async () => {
      const clientAddress = clientAddressOf(event)
      return extensionFunctions({ origin: siteOrigin(event), headers: event.request.headers, method: event.request.method, ...(clientAddress && { clientAddress }) }, runtime)
    }) as App.Locals["extensions"]
    // Core checks the host of the request it is given, as it does for every request.
    if (underBasePath(event.url.pathname, runtime.basePath)) return runtime.handle(event.request, { clientAddress: clientAddressOf(event) })
    return resolve(event)
  }

  const signIn: AuthAction = async (event) => {
    const runtime = await runtimeOf(event)
    const origin = siteOrigin(event)
    assertSameOrigin(event, origin)
    const form = await event.request.formData()
    const fields: Record<string, string> = {}
    const authorizationParams: Record<string, string> = {}
    let provider: string | undefined
    let redirectTo: string | undefined
    const csrfToken = form.get("csrfToken")
    for (const [name, value] of form) {
      if (typeof value !== "string") continue
      if (name === "providerId") provider = value || undefined
      else if (name === "redirectTo" || name === "callbackUrl") redirectTo = value || undefined
      else if (name.startsWith("authorizationParams-")) authorizationParams[name.slice("authorizationParams-".length)] = value
      else if (name !== "redirect") fields[name] = value
    }
    // A form that carries a CSRF token gets it checked by core (double submit); one without
    // relies on the origin checks alone, as Auth.js's form actions do.
    const checked = typeof csrfToken === "string" && csrfToken !== ""
    const target = await serverSignIn({ origin, headers: event.request.headers, provider, fields, redirectTo, authorizationParams, skipCSRF: !checked }, runtime, cookieSink(event))
    leaveTo(target)
  }

  const signOut: AuthAction = async (event) => {
    const runtime = await runtimeOf(event)
    const origin = siteOrigin(event)
    assertSameOrigin(event, origin)
    const form = await event.request.formData()
    const redirectTo = (form.get("redirectTo") ?? form.get("callbackUrl")) as string | null
    const csrfToken = form.get("csrfToken")
    const checked = typeof csrfToken === "string" && csrfToken !== ""
    const target = await serverSignOut(
      { origin, headers: event.request.headers, redirectTo: typeof redirectTo === "string" && redirectTo ? redirectTo : undefined, csrfToken: checked ? csrfToken : undefined, skipCSRF: !checked },
      runtime,
      cookieSink(event),
    )
    leaveTo(target)
  }

  return { handle, signIn, signOut }
}

/**
 * The form actions call core with its CSRF token check off, as Auth.js does: SvelteKit's
 * own origin check (`csrf.checkOrigin`) refuses cross-site form posts before they get here.
 * This repeats that check, so an app that turned SvelteKit's off still has it for sign-in
 * and sign-out (a cross-site sign-in is login CSRF; a cross-site sign-out is a nuisance).
 */
function assertSameOrigin(event: RequestEvent, siteOrigin: string): void {
  const origin = event.request.headers.get("origin")
  if (origin !== null && origin !== siteOrigin) error(403, "Cross-site sign-in and sign-out are refused")
  if (event.request.headers.get("sec-fetch-site") === "cross-site") error(403, "Cross-site sign-in and sign-out are refused")
}

/**
 * A 303 to core's answer, which may be another site: the provider's authorization endpoint,
 * or a URL the configuration's `redirect` callback accepted (core has checked it). Kit 3
 * refuses an external location unless told (`{ external: true }`; `javascript:` stays
 * refused); Kit 2 takes no third argument and ignores it.
 */
function leaveTo(location: string): never {
  return (redirect as (status: 303, location: string, options: { external: true }) => never)(303, location, { external: true })
}

/**
 * The site origin of the event, checked as core checks hosts: SvelteKit (or its adapter,
 * e.g. adapter-node's `HOST_HEADER`/`PROTOCOL_HEADER`) builds `event.url` from request
 * headers, so a hostile `Host` or forwarded header may be in it. Such a request is a 400,
 * never a `null` origin or a TypeError (a 500) on the way to core.
 */
function siteOrigin(event: RequestEvent): string {
  try {
    return originOfUrl(event.url)
  } catch (e) {
    if (e instanceof InvalidRequest) error(400, `InvalidRequest: ${e.message}`)
    throw e
  }
}

function cookieSink(event: RequestEvent) {
  return ({ name, value, options }: Cookie) => {
    // Core encodes values itself when it writes headers; SvelteKit's default encoder does the same.
    event.cookies.set(name, value, { ...options, path: options.path ?? "/" })
  }
}

/**
 * The peer address SvelteKit's adapter reports (its own `X-Forwarded-For` rules, e.g.
 * adapter-node's `ADDRESS_HEADER`/`XFF_DEPTH`), for rate limits; `undefined` where the
 * adapter cannot tell (it throws then).
 */
function clientAddressOf(event: { getClientAddress(): string }): string | undefined {
  try {
    return event.getClientAddress()
  } catch {
    return undefined
  }
}
