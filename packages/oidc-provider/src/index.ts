/**
 * `@portcullis/oidc-provider`: Portcullis as an OAuth 2.1 authorization server and OpenID
 * Provider — your users sign in to your other apps, CLIs and MCP clients with this app.
 * @module
 */
import { defineExtension, type Extension, type ExtensionRateLimit, type ExtensionRoute } from "@portcullis/core/extension"
import { buildLocals, issuerOf, type Locals } from "./locals.js"
import { messages } from "./messages.js"
import { withExtraMessages } from "./messages-extra.js"
import { accountSection } from "./account-section.js"
import { resolveOptions, type OidcProviderOptions, type OidcRateLimits } from "./options.js"
import { authorize, consentRoute, resumeRoute } from "./routes/authorize.js"
import { consentsPage, revokeConsentRoute } from "./routes/consents.js"
import { discovery, jwks, metadata } from "./routes/discovery.js"
import { introspect } from "./routes/introspect.js"
import { logout, logoutDone } from "./routes/logout.js"
import { revoke } from "./routes/revoke.js"
import { token } from "./routes/token.js"
import { deleteRegistration, readRegistration, register } from "./routes/register.js"
import { deviceAuthorization } from "./device/authorization.js"
import { devicePage, deviceSubmit } from "./device/page.js"
import { liveAccessToken, userinfo } from "./routes/userinfo.js"
import type { AccessTokenClaims } from "./tokens.js"
import type { Consent } from "./store/types.js"

export type * from "./store/types.js"
export type { RegistrationOptions, OpenRegistration, ProtectedRegistration } from "./registration/options.js"
export type { OidcProviderOptions, StaticClientOptions, SigningAlg, ClaimsUser, OrganizationsReader, OidcRateLimits } from "./options.js"
export type { AccessTokenClaims } from "./tokens.js"
export type { Locals as OidcProviderLocals } from "./locals.js"
export { OAuthError } from "./errors.js"
export { consentsSection } from "./routes/consents.js"
export { grants, type GrantHandler, type GrantContext } from "./grants/index.js"
export { wellKnownPath } from "./well-known.js"

/** RFC 7591 registration and RFC 7592 read/delete: machine callers, authenticated by their bearer tokens. */
function registrationRoutes(registerLimit: ExtensionRateLimit, manageLimit: ExtensionRateLimit | false): ExtensionRoute<Locals>[] {
  return [
    { method: "POST", path: "register", access: "anyone", from: "anywhere", cors: true, rateLimit: registerLimit, handler: register },
    { method: "GET", path: "register/:clientId", access: "anyone", from: "anywhere", cors: true, rateLimit: manageLimit, handler: readRegistration },
    { method: "DELETE", path: "register/:clientId", access: "anyone", from: "anywhere", cors: true, rateLimit: manageLimit, handler: deleteRegistration },
  ]
}

/** The provider's server functions (`extensions.oidc.*` in app code). */
export interface OidcProviderServer {
  /** The signed-in user's remembered consents (the apps with access). */
  consents(): Promise<Consent[]>
  /** Forgets the consent for `clientId` and revokes the user's grants for it; `false` when there was none. */
  revokeConsent(clientId: string): Promise<boolean>
  /** Verifies an access token issued here, revocation included (in-process resource servers); `null` when not valid. */
  verifyAccessToken(token: string): Promise<AccessTokenClaims | null>
  /** The discovery document (for serving it at the site root, RFC 8414 §3). */
  metadata(): Record<string, unknown>
}

/**
 * The OpenID Provider extension: discovery, JWKS, `authorize` (code flow, PKCE), consent,
 * `token` (authorization_code, refresh_token with rotation and reuse detection,
 * client_credentials), `userinfo`, revocation, introspection, RP-initiated logout and the
 * "apps with access" page, under `<basePath>/oidc/`.
 *
 * @example
 * ```ts
 * import { oidcProvider } from "@portcullis/oidc-provider"
 * import { memoryOidcProviderStore } from "@portcullis/oidc-provider/memory"
 *
 * export const config = {
 *   providers,
 *   extensions: [
 *     oidcProvider({
 *       store: memoryOidcProviderStore(),
 *       clients: [{ clientId: "cli", redirectUris: ["http://127.0.0.1/callback"] }],
 *     }),
 *   ],
 * }
 * ```
 * @throws `InvalidConfig` naming the option (or the client and the field) that is wrong.
 */
export function oidcProvider(options: OidcProviderOptions): Extension<"oidc", OidcProviderServer, Locals> {
  const resolved = resolveOptions(options)
  const limits = resolved.rateLimit
  const limit = (name: keyof OidcRateLimits): ExtensionRateLimit | false => (limits === false ? false : (limits[name] ?? false))
  // `cors`: what a browser-based client (a single-page app, a browser MCP client) calls with
  // `fetch` — never the pages (authorize, consent, logout), which are navigations.
  const routes: ExtensionRoute<Locals>[] = [
    { method: "GET", path: ".well-known/openid-configuration", access: "anyone", from: "anywhere", cors: true, rateLimit: false, handler: discovery },
    { method: "GET", path: ".well-known/oauth-authorization-server", access: "anyone", from: "anywhere", cors: true, rateLimit: false, handler: discovery },
    { method: "GET", path: "jwks", access: "anyone", from: "anywhere", cors: true, rateLimit: false, handler: jwks },
    { method: "GET", path: "authorize", access: "anyone", answers: "page", rateLimit: limit("authorize"), handler: authorize },
    { method: "POST", path: "authorize", access: "anyone", from: "anywhere", answers: "page", rateLimit: limit("authorize"), handler: authorize },
    { method: "GET", path: "authorize/resume", access: "anyone", answers: "page", rateLimit: limit("authorize"), handler: resumeRoute },
    { method: "POST", path: "consent", answers: "page", rateLimit: limit("authorize"), handler: consentRoute },
    { method: "POST", path: "token", access: "anyone", from: "anywhere", cors: true, rateLimit: limit("token"), handler: token },
    { method: "GET", path: "userinfo", access: "anyone", from: "anywhere", cors: true, rateLimit: limit("userinfo"), handler: userinfo },
    { method: "POST", path: "userinfo", access: "anyone", from: "anywhere", cors: true, rateLimit: limit("userinfo"), handler: userinfo },
    { method: "POST", path: "revoke", access: "anyone", from: "anywhere", cors: true, rateLimit: limit("revoke"), handler: revoke },
    { method: "POST", path: "introspect", access: "anyone", from: "anywhere", rateLimit: limit("introspect"), handler: introspect },
    { method: "GET", path: "logout", access: "anyone", answers: "page", rateLimit: limit("authorize"), handler: logout },
    { method: "GET", path: "logout/done", access: "anyone", answers: "page", rateLimit: limit("authorize"), handler: logoutDone },
    { method: "GET", path: "consents", answers: "page", handler: consentsPage },
    { method: "POST", path: "consents/revoke", answers: "page", handler: revokeConsentRoute },
    { method: "POST", path: "device_authorization", access: "anyone", from: "anywhere", rateLimit: limit("token"), handler: deviceAuthorization },
    { method: "GET", path: "device", access: "anyone", answers: "page", rateLimit: limit("authorize"), handler: devicePage },
    { method: "POST", path: "device", answers: "page", rateLimit: limit("device"), handler: deviceSubmit },
    ...(resolved.registration ? registrationRoutes(resolved.registration.rateLimit, limit("token")) : []),
  ]
  return defineExtension({
    id: "oidc",
    setup: (host) => buildLocals(resolved, host),
    messages: withExtraMessages(messages),
    routes,
    accountSection,
    server: (call): OidcProviderServer => ({
      async consents() {
        const session = await call.requireSession()
        return call.locals.store.listConsents(session.userId)
      },
      async revokeConsent(clientId) {
        const session = await call.requireSession()
        const revoked = await call.locals.store.revokeConsent(session.userId, clientId)
        if (revoked) await call.audit({ type: "consentRevoked", outcome: "success", userId: session.userId, details: { clientId } })
        return revoked
      },
      async verifyAccessToken(token) {
        return liveAccessToken(call.locals, issuerOf(call.locals, call), token)
      },
      metadata: () => metadata(call),
    }),
  }) as Extension<"oidc", OidcProviderServer, Locals>
}

