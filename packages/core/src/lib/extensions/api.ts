/**
 * The extension API's shapes: what an extension is (`Extension`), what core hands it once per
 * configuration (`ExtensionHost`) and per request (`ExtensionRequest`, `ExtensionCall`).
 * Public through `@portcullis/core/extension`; a leaf here, so the modules that serve
 * extensions (`resolve.ts`, `handle.ts`, `fields.ts`) import it and it imports none of them.
 * @module
 */
import type { SafeHtml } from "../pages/html.js"
import type { AuditDetails, AuditOutcome } from "../audit/events.js"
import type { LoggerInstance } from "../../base-types.js"
import type { AccountApi } from "./account-api.js"
import type { ExtensionAdmin } from "./admin-api.js"

/** A JSON value: what an extension may keep in a session token or send to a browser. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json }

/** A limit on one of an extension's routes, counted in the configuration's rate-limit store. */
export interface ExtensionRateLimit {
  /** Requests allowed per window, per client address and per signed-in user (each counted apart). */
  max: number
  /** The window, in seconds. */
  window: number
}

/**
 * One route of an extension, served at `<basePath>/<extension id>/<path>`. Core applies the
 * conventions before the handler runs, so an extension cannot forget them: the origin
 * check and the double-submit CSRF token on every `POST` (`csrfToken` in the body, or the
 * `X-CSRF-Token` header a client library sends), the rate limit, the signed-in session (and,
 * with `stepUp`, a recent re-authentication), and the answer's form on refusal.
 */
export interface ExtensionRoute<Locals = unknown> {
  /** `PUT`, `PATCH` and `DELETE` only with `from: "anywhere"`: browsers' forms never send them, machine clients (SCIM) do. */
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
  /** Segments after the extension id; `:name` segments are parameters (`invitations/:id/accept`). `""` is the extension's root. */
  path: string
  /** Who may call it: `"user"` (default) needs a valid session; `"anyone"` does not (a page that then asks to sign in). */
  access?: "user" | "anyone"
  /**
   * Who may send a change here: `"site"` (default) — a `POST` must come from this site, with
   * the CSRF token; `"anywhere"` — no origin or CSRF check, for requests another party makes
   * by design: an identity provider's cross-site form post (a SAML response), a SCIM client,
   * a token endpoint. Only with `access: "anyone"`: such a route authenticates its caller
   * itself (a signature, a bearer token) and never acts on the browser's session: there
   * `session()` is `null` and `requireSession()` a 401, whatever cookies came along.
   */
  from?: "site" | "anywhere"
  /**
   * Callable from scripts of other origins (a single-page app, a browser MCP client) without
   * credentials: core answers the CORS preflight (`OPTIONS`) of the route's path, and every
   * answer of the route — refusals, 429 and 503 included — carries
   * `Access-Control-Allow-Origin: *` (never `…-Allow-Credentials`). Only with
   * `from: "anywhere"`, whose routes read no cookies (docs/extensions.md, "CORS").
   */
  cors?: boolean
  /** Require a recent re-authentication (docs/step-up.md) — for the destructive changes. */
  stepUp?: boolean
  /** Default `{ max: 30, window: 60 }` for `POST`, none for `GET`; `false` for none. Off with `rateLimit: false`. */
  rateLimit?: ExtensionRateLimit | false
  /** `"json"` (default): refusals answer `{ error, message }` with their status. `"page"`: refusals render the themed error card. */
  answers?: "json" | "page"
  handler(request: ExtensionRequest<Locals>): Promise<ExtensionResponse> | ExtensionResponse
}

/** What a route answers. */
export type ExtensionResponse =
  | {
      json: Json | object
      status?: number
      /** A JSON media type of the protocol's own (`application/scim+json`): `application/json` or `application/<x>+json`. Default `application/json`. */
      contentType?: string
      /** Headers of the protocol (`ETag`, `Location`, `WWW-Authenticate`); never `Set-Cookie`. */
      headers?: Record<string, string>
    }
  | { redirect: string }
  | { page: { title: string; body: SafeHtml }; status?: number }
  /** A document of another type (SAML metadata as `application/samlmetadata+xml`), sent as is, never cached, never HTML (use `page`), with `nosniff` and a sandboxing CSP. */
  | { text: string; contentType: string; status?: number; headers?: Record<string, string> }
  /** No body: `204 No Content` (a SCIM `DELETE`). */
  | { empty: true; status?: number; headers?: Record<string, string> }

/** The signed-in session of a request, as extensions see it. */
export interface ExtensionSession {
  userId: string
  /** The email the session names, when it names one. */
  email?: string
  /**
   * This session's key for this extension: stable for the session's life, different in every
   * extension, and not the session's id or token (a hash of them), so an extension may store
   * things under it (an active organization) without holding a secret.
   */
  key: string
  /** When the session ends at the latest (for what is stored under `key`). */
  expires: Date
}

/** An audit event an extension emits; `type` is prefixed with the extension's id (`organizations.memberAdded`). */
export interface ExtensionAuditInput {
  type: string
  outcome: AuditOutcome
  userId?: string
  actor?: string
  reason?: string
  details?: AuditDetails
}

/** An email an extension sends through the configuration's sender (`notifications.mailer`, else the password or email provider). */
export interface ExtensionMail {
  to: string
  /** The link the email's button opens. */
  url: string
  /** The sentences, already in the recipient's language (see `t`). */
  messages: { subject: string; heading: string; button: string; expires: string; ignore: string }
  /** When the link stops working (shown by some senders). */
  expires: Date
}

/** What every call of an extension — a route or a server function — can do. */
export interface ExtensionTools {
  /** The signed-in session, or `null`: read fresh (a revoked session is none). */
  session(): Promise<ExtensionSession | null>
  /**
   * When the signed-in user last proved a first factor in this session (signed in or
   * re-authenticated) — from the session's step-up mark, so known only within
   * `stepUp.maxAge` of that proof; `null` when signed out or longer ago. What an OpenID
   * Provider needs for `auth_time`, `max_age` and `prompt=login`.
   * @throws ServiceUnavailable when the step-up store fails.
   */
  authTime(): Promise<Date | null>
  /** The signed-in session; otherwise throws `NotSignedIn` (401). With `stepUp`, `StepUpRequired` unless re-authenticated recently. */
  requireSession(options?: { stepUp?: boolean }): Promise<ExtensionSession>
  /** The request's language (negotiated from `Accept-Language` and the `i18n` option). */
  locale: string
  /** A sentence of the extension's `messages` in the request's language (English when missing), `{name}` placeholders filled. */
  t(key: string, values?: Record<string, string | number>): string
  /** `<origin><basePath>`, e.g. `https://app.example/auth`: for links to the extension's routes. */
  authUrl: string
  /** Whether `authUrl`'s origin may be put in a mailed link (it came from `AUTH_URL` or `trustedOrigins`). */
  originTrusted: boolean
  /** Emits an audit event (client address, user agent, id and time filled in); never throws. */
  audit(event: ExtensionAuditInput): Promise<void>
  /** Counts one use of `name` by this client and user against `limit`; throws `RateLimited` (429) beyond it. */
  rateLimit(name: string, limit: ExtensionRateLimit, subject?: string): Promise<void>
  /** Sends an email; throws when the configuration has no sender or the sender failed. */
  mail(message: ExtensionMail): Promise<void>
  /** The signed-in user's own account (docs/account.md): profile, ways in, passkeys, password, 2FA, sessions, email, deletion. */
  account: AccountApi
  /** Acting on any user (list, sessions, 2FA reset, audit trail) — for an admin console, which must check who calls first (`admin-api.ts`). */
  admin: ExtensionAdmin
}

/** What a route's handler gets. */
export interface ExtensionRequest<Locals = unknown> extends ExtensionTools {
  /** The extension's per-configuration state, as its `setup` returned it. */
  locals: Locals
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
  /** The `:name` segments of the route's path, decoded. */
  params: Record<string, string>
  query: Record<string, string>
  /** The parsed body (form, or a JSON object — `application/json` or any `+json` type) of a `POST`, `PUT` or `PATCH`; `{}` otherwise. */
  body: Record<string, unknown>
  /**
   * A url-encoded body as sent, repeated names kept (`body` keeps the last value of each): for
   * protocols that must refuse a repeated parameter (RFC 6749 §3.1) or read a repeatable one
   * (RFC 8707 `resource`). `undefined` for any other body.
   */
  form?: URLSearchParams
  /** The CSRF token to put in a form this route renders (a `csrfToken` hidden field). */
  csrfToken(): Promise<string>
  /**
   * The sections the configuration's extensions add to the account center
   * ({@link Extension.accountSection}), in configuration order, each asked with its own
   * `locals`, catalog and session key; `[]` when signed out. One that fails is logged and
   * answered `{ id, unavailable: true }`, never failing the page that shows the others.
   *
   * @example
   * ```ts
   * for (const s of await req.accountSections()) body.push("unavailable" in s ? notShown : section(s.id, s.heading, s.body))
   * ```
   */
  accountSections(): Promise<ExtensionAccountSectionEntry[]>
  /** A page of the extension in the configuration's theme and the request's language. */
  page(title: string, body: SafeHtml, status?: number): ExtensionResponse
  /**
   * The sign-in page to send a signed-out browser to — the app's `pages.signIn` when
   * configured, else core's — coming back to `callbackUrl` (checked by core's `redirect`
   * callback when the sign-in ends), with `email` to prefill. Where core's own refusals of
   * pages send the browser.
   *
   * @example
   * ```ts
   * if (!(await req.session())) return { redirect: req.signInUrl(req.url.href, { email: loginHint }) }
   * ```
   */
  signInUrl(callbackUrl: string, options?: { email?: string }): string
  /**
   * Signs the browser in as an identity the extension verified (an SSO assertion): the
   * user is found by the account, linked or created by core's rules, the app's `signIn`
   * callback and the sign-in gates are asked, and the session is made as every provider's
   * is (two-factor challenge, events, audit, new-device notice). Answer with `response`.
   */
  signIn: ExtensionSignIn
  /** A relying party for an OpenID Connect provider the extension names at run time (an organization's IdP), with core's checks. */
  oidc: ExtensionOidc
  /**
   * A value this browser carries through a round trip to another site (an IdP) and back,
   * sealed in core's 15-minute check cookie (`SameSite=Lax`: it comes back on the top-level
   * `GET` that ends the trip, not on a cross-site `POST`): proof that the browser coming back
   * is the one that left — what stops a response made for an attacker's own account from
   * being fed into a victim's browser (login CSRF).
   *
   * @example
   * ```ts
   * await req.browser.bind("saml", requestId)         // at the start
   * if ((await req.browser.bound("saml")) !== requestId) throw new ExtensionRequestError("not-this-browser", "…", 400)
   * ```
   */
  browser: ExtensionBrowserBinding
  headers: Headers
  url: URL
}

/** `req.browser`: one bound value per flow name at a time; opening it deletes it (single use). */
export interface ExtensionBrowserBinding {
  bind(flow: string, value: string): Promise<void>
  /** The value bound for `flow` in this browser, or `null` (none, expired, tampered, bound by another extension or flow). */
  bound(flow: string): Promise<string | null>
}

/** What a server function gets: the tools, bound to the request the integration passed. */
export interface ExtensionCall<Locals = unknown> extends ExtensionTools {
  locals: Locals
}

/** What core gives an extension once per configuration (`setup`). */
export interface ExtensionHost {
  /** The configuration's logger. */
  logger: LoggerInstance
  /**
   * A store of the extension's, wrapped as core wraps the adapter: each call bounded by
   * `adapterTimeout`, a failure an `AdapterError` counted as an outage of `"<name> store"`
   * (logged once, answered 503), never a crash or a 500 with a stack.
   */
  wrapStore<T extends object>(name: string, store: T): T
  /** The adapter's `getUser` (wrapped), to read a user's email and whether it is verified. */
  getUser(id: string): Promise<{ id: string; email?: string | null; emailVerified?: Date | null; name?: string | null } | null>
  /** The adapter's `getUserByEmail` (wrapped). */
  getUserByEmail(email: string): Promise<{ id: string; email?: string | null; emailVerified?: Date | null } | null>
  /** The session strategy of the configuration. */
  strategy: "jwt" | "database"
  /**
   * 32 bytes derived (HKDF-SHA256) from the configuration's secret for this extension and
   * `purpose`: a key to seal what the extension stores (a signing key's private part), without
   * ever holding the secret. Stable across instances sharing the secret; another extension or
   * purpose gets another key. Rotating the secret changes it (what was sealed must be resealed:
   * open it with {@link deriveKeys}).
   *
   * @example
   * ```ts
   * const key = await host.deriveKey("signing-keys")
   * ```
   */
  deriveKey(purpose: string): Promise<Uint8Array>
  /**
   * The keys {@link deriveKey} gives for `purpose` under each of the configuration's secrets,
   * newest first (`[0]` is `deriveKey`'s): while a secret is rotated (a new one added on top,
   * `AUTH_SECRET_1..3`), what was sealed under an older one still opens — and should be
   * sealed again under `[0]`, as the older secret will be removed.
   *
   * @example
   * ```ts
   * const [current, ...older] = await host.deriveKeys("signing-keys")
   * ```
   */
  deriveKeys(purpose: string): Promise<Uint8Array[]>
}

/** What an extension's {@link Extension.signInRoute} is asked about: the address typed at the sign-in page's first step. */
export interface ExtensionSignInRouteInput<Locals = unknown> {
  email: string
  locals: Locals
  /** `<origin><basePath>`, for the form's action. */
  authUrl: string
  /** A sentence of this extension's catalog in the request's language. */
  t(key: string, values?: Record<string, string | number>): string
}

/** Where the sign-in page sends an address: a button posting `email` (and the CSRF token and callback URL) to `action`. */
export interface ExtensionSignInRoute {
  /** A route of the extension (`${authUrl}/sso/start`): a `POST`, CSRF-checked by core. Another URL is refused (InvalidConfig): the form carries the CSRF token. */
  action: string
  label: string
  /** Only this way in for the address (the domain requires SSO): the page shows no other method. */
  only: boolean
}

/** Session answers an extension adds to (`fields`), and claims it keeps in JWT sessions (`claims`). */
export interface ExtensionSessionHooks<Locals = unknown> {
  /**
   * Fields added to the session answer (what `auth()`, `getSession`, `useSession` return),
   * under the extension's id: `session.organizations = { … }`. Called on every full session
   * check, so it can reflect a change made since sign-in (a removal), and should be one
   * store read. A failure of it is an outage of the extension's store (503), never `null`.
   */
  fields?(input: { session: ExtensionSession; claims: Json | undefined; locals: Locals }): Promise<Json | undefined> | Json | undefined
  /**
   * Claims kept in a JWT session token under the extension's id, computed at sign-in and
   * at `update()`; at most `budget` bytes of JSON (default 256). Database sessions keep no
   * claims (`claims` is `undefined` in `fields`): keep such state in the extension's store
   * under the session's `key`.
   */
  claims?(input: { userId: string; locals: Locals }): Promise<Json | undefined> | Json | undefined
  /** Bytes of JSON the claims may take in the cookie (default 256, at most 1024). */
  budget?: number
  /**
   * Whether the session may go on, asked wherever `fields` are computed and wherever an
   * extension's route or server function reads the session. `false` ends it: the session is
   * answered as none, and its row (or registry entry) is deleted with the cookie. For limits
   * an extension puts on a session it started (an impersonation's hard end), not in core's
   * always-loaded session read. A store failure is an outage (503), never a valid session.
   *
   * @example
   * ```ts
   * valid: async ({ session, locals }) => !(await locals.limits.expired(session.key))
   * ```
   */
  valid?(input: { session: ExtensionSession; locals: Locals; audit(event: ExtensionAuditInput): Promise<void> }): Promise<boolean> | boolean
}

/**
 * An extension: routes, session fields, event handlers, pages and server functions that
 * build on Portcullis the way any app's code can. Organizations, the admin console,
 * enterprise SSO and the OpenID Provider are extensions. Build one with
 * {@link defineExtension}; pass it in the configuration's `extensions`.
 *
 * Everything an extension remembers lives in what its `setup` returns (`locals`), built once
 * per configuration — never in a module variable — so two configurations in one process
 * share nothing.
 */
export interface Extension<Id extends string = string, Server = unknown, Locals = any> {
  /** Lowercase `a-z0-9-`, the first segment of its routes; not one of core's actions. */
  readonly id: Id
  /** Builds the per-configuration state; may check the configuration and throw an `InvalidConfig` explaining what is wrong. */
  setup?(host: ExtensionHost): Locals
  routes?: readonly ExtensionRoute<Locals>[]
  session?: ExtensionSessionHooks<Locals>
  /** Handlers of core's events (as the app's `events`), called after the app's own, each bounded and never failing the flow. */
  events?: (locals: Locals) => ExtensionEventHandlers
  /** The extension's sentences by language tag: `{ en: { key: "Text with {name}" }, de: { … } }`. English is required. */
  messages?: Readonly<Record<string, Readonly<Record<string, string>>>>
  /** Server functions, exposed through every integration under the extension's id (`extensions.organizations.create(…)`). */
  server?(call: ExtensionCall<Locals>): Server
  /**
   * Asked where every sign-in becomes a session (any provider kind, and again right after the
   * session is created, so a refusal written meanwhile still holds), and earlier, before a
   * sign-in writes anything: before it creates its user (then without `userId`: there is
   * nobody to look up yet), before it links an account or a passkey to a user, before an
   * email sign-in link is mailed and before a password sign-up is taken (both without
   * `userId`, for known and unknown addresses alike, so the answer tells nobody who has an
   * account). A `{ refuse }` answer ends the sign-in with `AccountSuspended` (the sign-in
   * page's `?error=AccountSuspended`), with nothing created. A thrown store failure refuses
   * too (503), never allows.
   *
   * @example
   * ```ts
   * // A ban is of a user: nothing to refuse before one exists (the next ask has the id).
   * signInGate: async ({ userId, locals }) => (userId && (await locals.bans.get(userId)) ? { refuse: "banned" } : undefined)
   * ```
   */
  signInGate?(input: ExtensionSignInGateInput<Locals>): Promise<ExtensionSignInVerdict> | ExtensionSignInVerdict
  /**
   * A notice shown atop every extension page (the account center, the admin console…) while
   * signed in — the admin console's impersonation banner. Asked only for pages, with the
   * session as this extension sees it; `undefined` for none. A failure of it is logged and
   * the page shown without it.
   *
   * @example
   * ```ts
   * banner: async ({ session, locals }) => (await locals.notice(session.key)) ? html`<p role="status">…</p>` : undefined
   * ```
   */
  banner?(input: ExtensionBannerInput<Locals>): Promise<SafeHtml | undefined> | SafeHtml | undefined
  /**
   * A section this extension adds to the account center (`@portcullis/account`, after its
   * own sections): a heading and a body whose forms post to this extension's own routes
   * (core checks the origin and the CSRF token there; put `csrfToken()` in a hidden
   * `csrfToken` field). Asked only while signed in, with the session as this extension sees
   * it; `undefined` for none. A failure of it (its store down, no answer within twice
   * `adapterTimeout`) is logged and the section shown as unavailable: it never costs the
   * account page.
   *
   * @example
   * ```ts
   * accountSection: async ({ session, locals, t, authUrl, csrfToken }) => ({
   *   heading: t("grants.heading"),
   *   body: html`<form method="post" action="${`${authUrl}/op/grants/revoke`}">…</form>`,
   * })
   * ```
   */
  accountSection?(input: ExtensionAccountSectionInput<Locals>): Promise<ExtensionAccountSection | undefined> | ExtensionAccountSection | undefined
  /**
   * Asked at the identifier-first sign-in page's "Continue" with the address typed: a way in
   * for it (the organization's SSO for `ada@acme.com`), shown above the other methods — or
   * instead of them when `only`. Configured, it makes "Continue" a round trip (no script
   * reveals the methods in place). A failure is the sign-in's outage (the error page, a
   * 503: wrap the store with `host.wrapStore`); `undefined` for no route.
   */
  signInRoute?(input: ExtensionSignInRouteInput<Locals>): Promise<ExtensionSignInRoute | undefined> | ExtensionSignInRoute | undefined
}

/** What an extension's {@link Extension.banner} is given. */
export interface ExtensionBannerInput<Locals = unknown> {
  session: ExtensionSession
  locals: Locals
  /** A sentence of this extension's catalog in the request's language. */
  t(key: string, values?: Record<string, string | number>): string
  locale: string
  authUrl: string
  /** The CSRF token, for a form in the banner. */
  csrfToken(): Promise<string>
}

/** What an extension's {@link Extension.accountSection} is given: what a banner is. */
export type ExtensionAccountSectionInput<Locals = unknown> = ExtensionBannerInput<Locals>

/** An extension's section of the account center. */
export interface ExtensionAccountSection {
  /** The section's heading (an `h2`), already in the request's language (`t`). */
  heading: string
  body: SafeHtml
}

/** One extension's answer in `req.accountSections()`: its section, or a note that it failed. */
export type ExtensionAccountSectionEntry = ({ id: string } & ExtensionAccountSection) | { id: string; unavailable: true }

/** What an extension's {@link Extension.signInGate} is asked about. */
export interface ExtensionSignInGateInput<Locals = unknown> {
  /**
   * The user signing in. Absent when the sign-in would create the user (nobody to look up
   * yet), and before a sign-in link is mailed or a password sign-up taken: decide by `email`
   * and `provider` then, as the same sign-in is asked again with the id once the user exists.
   * When a first verification of the address is about to replace an unverified user with a
   * fresh one, it is the replaced user's id: a ban of that user holds for the fresh one.
   */
  userId?: string
  /** The address the sign-in is for, when it has one. */
  email?: string
  /** The provider's id (`github`, `credentials`, `email`, `passkey`…), when known. */
  provider?: string
  locals: Locals
}

/** A gate's answer: nothing to let the sign-in go on, `{ refuse }` (a reason for the log) to end it. */
export type ExtensionSignInVerdict = undefined | void | { refuse: string }

/**
 * Handlers of core's events by name (`signIn`, `signOut`, `createUser`, `updateUser`,
 * `linkAccount`, `session`, `sessionRevoked`, `securityNotice`, `audit`, …), each given the
 * message the app's `events` handler of that name gets (docs/configuration.md, `events`).
 * Typed loosely here — this module is a leaf; `defineExtension` in `@portcullis/core/extension`
 * types them as the app's.
 */
export type ExtensionEventHandlers = Readonly<Record<string, ((message: any) => unknown) | undefined>>

/** The server functions of a configuration's extensions, by id: what integrations hand to app code. */
export type ExtensionFunctions<E extends readonly Extension<string, unknown>[] | undefined> = E extends readonly Extension<string, unknown>[]
  ? { [X in E[number] as X["id"]]: X extends Extension<string, infer S> ? S : never }
  : Record<string, never>

// The sign-in facets (`req.signIn`, `req.oidc`): their code is `sign-in.ts` and `oidc.ts`, loaded with `import()`.

/** An identity an extension verified, to sign in as. */
export interface ExtensionIdentity {
  /**
   * The account's provider as stored (`sso:<connection id>`): the adapter's
   * `getUserByAccount({ provider, providerAccountId })` finds the user on later sign-ins.
   * Must not be the id of a configured provider.
   */
  provider: string
  /** Stable per user at that provider (the SAML NameID, the OIDC `sub`). */
  providerAccountId: string
  /** `"oidc"` for an OpenID Connect IdP, `"saml"` for a SAML one (stored as the account's `type`). */
  type: "oidc" | "saml"
  /** The address the IdP asserts, when it asserts one. */
  email?: string
  /**
   * Whether the extension vouches for `email` (an address of a domain the organization
   * verified). Only a vouched-for address creates a user with a verified email, or links
   * the account to an existing user of that address; otherwise a new address is refused
   * (`OAuthAccountNotLinked`'s rule for an address that belongs to someone).
   */
  emailVerified: boolean
  name?: string | null
  image?: string | null
  /** Where to land: a URL of the app, passed through the `redirect` callback. Default: the callback-url cookie, else the site root. */
  callbackUrl?: string
  /** The IdP's profile (claims, attributes), for the `signIn` callback and events as `profile`. */
  profile?: Record<string, unknown>
}

/** What `req.signIn` did. */
export interface ExtensionSignInOutcome {
  /** The route's answer: a redirect (to the callback URL, `pages.newUser`, the two-factor step, or the sign-in page with an error). */
  response: ExtensionResponse
  /** The user signed in, once a session exists or a second factor is asked for; `null` when refused. */
  userId: string | null
  isNewUser: boolean
  /**
   * The new session as this extension sees it, with its key for every configured extension
   * (`keys.organizations`: to set the organization it lands in); `null` while a second factor
   * is pending or when refused.
   */
  session: (ExtensionSession & { keys: Readonly<Record<string, string>> }) | null
  /** Why the sign-in was refused (an error type: `AccessDenied`, `OAuthAccountNotLinked`, `AccountSuspended`), else `null`. */
  refused: string | null
}

/** `req.signIn`. A refusal is not thrown: it is `refused`, with `response` the sign-in page naming the error. Store failures are thrown (503). */
export type ExtensionSignIn = (identity: ExtensionIdentity) => Promise<ExtensionSignInOutcome>

/** An OpenID Connect client the extension names per call. */
export interface ExtensionOidcClient {
  /** Names the checks' cookies and the log lines: stable per connection (`sso-<connection id>`), `a-z0-9-`. */
  id: string
  issuer: string
  clientId: string
  /** `client_secret_basic` with it; a public client (PKCE only) without. */
  clientSecret?: string
  /** Default `openid email profile`. */
  scope?: string
  /** The callback route of the extension that will call `callback` (`${authUrl}/sso/oidc/<id>/callback`). */
  redirectUri: string
}

/** What `oidc.callback` verified. */
export interface ExtensionOidcResult {
  /** The ID token's claims merged with userinfo's (`sub` always equal). */
  claims: Record<string, unknown> & { sub: string; iss: string }
}

/**
 * A relying party with core's protections for OAuth/OIDC providers: discovery through the
 * hardened back channel (https outside development, timeouts, no redirects, size caps),
 * PKCE S256, state and nonce in sealed cookies bound to the browser and to `client.id`,
 * RFC 9207 `iss`, ID token signature, issuer, audience, expiry and nonce.
 */
export interface ExtensionOidc {
  /** The authorization URL to redirect to; the checks' cookies are set on the route's answer. `loginHint` is passed as `login_hint`. */
  authorize(client: ExtensionOidcClient, options?: { loginHint?: string }): Promise<string>
  /**
   * Checks the authorization response of this request (its query) and redeems the code.
   * @throws `InvalidCheck`, `OAuthCallbackError` (client-caused: a 400 the caller may show as a sign-in error).
   */
  callback(client: ExtensionOidcClient): Promise<ExtensionOidcResult>
}
