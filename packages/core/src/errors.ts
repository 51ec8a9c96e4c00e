/**
 * Errors thrown or logged by Portcullis.
 *
 * Every error is an {@link AuthError} subclass with a stable `type` (a string union, so a
 * `switch` narrows) and a `kind` that decides where the user is sent: `"signIn"` errors go
 * back to the sign-in page, `"error"` errors to the error page. Class names and `type`
 * values are the same as Auth.js v5, so `instanceof` and `type` checks in a migrated app keep
 * working. Messages never carry token material.
 *
 * @example
 * ```ts
 * import { AuthError, CredentialsSignin } from "@portcullis/core/errors"
 *
 * class InvalidLogin extends CredentialsSignin {
 *   code = "invalid_login" // shown in the URL as ?error=CredentialsSignin&code=invalid_login
 * }
 * ```
 * @module
 */

/** Every `type` an {@link AuthError} can carry. */
export type ErrorType =
  | "ExtensionRequestError"
  | "AccessDenied"
  | "AccountNotLinked"
  | "AdapterError"
  | "AuthError"
  | "CallbackRouteError"
  | "CredentialsSignin"
  | "DuplicateConditionalUI"
  | "EmailSignInError"
  | "ErrorPageLoop"
  | "EventError"
  | "ExperimentalFeatureNotEnabled"
  | "InvalidCallbackUrl"
  | "InvalidCheck"
  | "InvalidEndpoints"
  | "InvalidProvider"
  | "JWTSessionError"
  | "MissingAdapter"
  | "MissingAdapterMethods"
  | "MissingAuthorize"
  | "MissingCSRF"
  | "MissingSecret"
  | "MissingWebAuthnAutocomplete"
  | "OAuthAccountNotLinked"
  | "OAuthCallbackError"
  | "OAuthProfileParseError"
  | "OAuthSignInError"
  | "ServiceUnavailable"
  | "SessionTokenError"
  | "SignOutError"
  | "UnknownAction"
  | "UnsupportedStrategy"
  | "UntrustedHost"
  | "Verification"
  | "WebAuthnVerificationError"
  | "InvalidConfig"
  | "RequestTooLarge"
  | "MethodNotAllowed"
  | "InvalidRequest"
  | "UnsupportedPasswordHash"
  | "PasswordRejected"
  | "RateLimited"
  | "SessionManagementUnsupported"
  | "NotSignedIn"
  | "ReauthRequired"
  | "TokenRefreshFailed"
  | "TwoFactorChallengeInvalid"
  | "TwoFactorCodeInvalid"
  | "TwoFactorStateError"
  | "StepUpRequired"
  | "InvalidAuditQuery"
  | "AuditTrailUnsupported"
  | "AccountSuspended"

/**
 * Error types Portcullis shares with Auth.js, same name and meaning: Auth.js's error
 * reference (`https://errors.authjs.dev#<type>`) explains their causes and fixes.
 */
const sharedWithAuthJs: ReadonlySet<string> = new Set<ErrorType>([
  "AccessDenied", "AccountNotLinked", "AdapterError", "CallbackRouteError", "CredentialsSignin",
  "DuplicateConditionalUI", "EmailSignInError", "ErrorPageLoop", "EventError", "ExperimentalFeatureNotEnabled",
  "InvalidCallbackUrl", "InvalidCheck", "InvalidEndpoints", "InvalidProvider", "JWTSessionError", "MissingAdapter",
  "MissingAdapterMethods", "MissingAuthorize", "MissingCSRF", "MissingSecret", "MissingWebAuthnAutocomplete",
  "OAuthAccountNotLinked", "OAuthCallbackError", "OAuthProfileParseError", "OAuthSignInError", "SessionTokenError",
  "SignOutError", "UnknownAction", "UnsupportedStrategy", "UntrustedHost", "Verification", "WebAuthnVerificationError",
])

/**
 * Where to read more about an error type, appended to every error's message as Auth.js
 * does (`… Read more at <url>`): Auth.js's reference for the types both libraries share;
 * none for Portcullis's own types (`InvalidConfig`, `ServiceUnavailable`, …), whose
 * messages say what to do themselves.
 */
function errorDocsUrl(type: string): string | undefined {
  return sharedWithAuthJs.has(type) ? `https://errors.authjs.dev#${type.toLowerCase()}` : undefined
}

/** Where an error sends the user: back to the sign-in page, or to the error page. */
export type ErrorKind = "signIn" | "error"

/** Extra context kept on an error for the server log; never sent to the client. */
export interface ErrorCause extends Record<string, unknown> {
  err?: Error
}

/**
 * Base class of every Portcullis error.
 *
 * `new AuthError("message")`, `new AuthError(someError)` (wraps it as `cause.err`),
 * `new AuthError("message", { err, ...details })`.
 */
export class AuthError extends Error {
  /** Stable identifier of the error, used in logs and in `?error=` codes. */
  type: ErrorType
  /** Where the user is sent when this error ends a request. */
  kind: ErrorKind
  declare cause?: ErrorCause

  static type: ErrorType = "AuthError"
  static kind: ErrorKind = "error"

  constructor(message?: string | Error | ErrorCause, errorOptions?: ErrorCause | Error) {
    let text: string | undefined
    let cause: ErrorCause | undefined
    if (message instanceof Error) {
      cause = { err: message, ...(message.cause as object | undefined), ...(errorOptions as object | undefined) }
    } else if (typeof message === "string") {
      text = message
      if (errorOptions instanceof Error) cause = { err: errorOptions, ...(errorOptions.cause as object | undefined) }
      else if (errorOptions) cause = errorOptions
    } else if (message) {
      cause = message
    }
    const ctor = new.target as unknown as typeof AuthError
    const docs = errorDocsUrl(ctor.type)
    // As in Auth.js, the message ends with where to read more, so logs point at the fix.
    super(docs ? `${text ? `${text}${/[.!?]$/.test(text) ? "" : "."} ` : ""}Read more at ${docs}` : (text ?? ""))
    this.name = ctor.name
    this.type = ctor.type
    this.kind = ctor.kind
    if (cause) this.cause = cause
    Error.captureStackTrace?.(this, new.target)
  }
}

/** Errors that end on the sign-in page (`kind: "signIn"`). */
export class SignInError extends AuthError {
  static override kind: ErrorKind = "signIn"
}

/** The `signIn` callback returned `false` or threw. Shown as `?error=AccessDenied`. */
export class AccessDenied extends AuthError {
  static override type: ErrorType = "AccessDenied"
}

/** A passkey sign-in would attach a credential to another user than the signed-in one. */
export class AccountNotLinked extends SignInError {
  static override type: ErrorType = "AccountNotLinked"
}

/** An adapter method threw; the original error is in `cause.err`. */
export class AdapterError extends AuthError {
  static override type: ErrorType = "AdapterError"
}

/** An unexpected error inside the callback route; logged in full, shown as `Configuration`. */
export class CallbackRouteError extends AuthError {
  static override type: ErrorType = "CallbackRouteError"
}

/**
 * Throw from a credentials provider's `authorize` to reject a sign-in. The user is sent
 * to the sign-in page with `?error=CredentialsSignin&code=<code>`. The code appears in a
 * URL: never say which of username or password was wrong.
 */
export class CredentialsSignin extends SignInError {
  static override type: ErrorType = "CredentialsSignin"
  /** Short, non-sensitive reason shown in the URL. */
  code = "credentials"
}

/** More than one WebAuthn provider asks for conditional UI. */
export class DuplicateConditionalUI extends AuthError {
  static override type: ErrorType = "DuplicateConditionalUI"
}

/** Sending the sign-in email failed. Shown as `?error=EmailSignin`. */
export class EmailSignInError extends SignInError {
  static override type: ErrorType = "EmailSignInError"
}

/** The configured error page redirected back to itself. */
export class ErrorPageLoop extends AuthError {
  static override type: ErrorType = "ErrorPageLoop"
}

/** An event handler threw; logged, never fails the request. */
export class EventError extends AuthError {
  static override type: ErrorType = "EventError"
}

/** An `experimental` feature is used without being switched on. */
export class ExperimentalFeatureNotEnabled extends AuthError {
  static override type: ErrorType = "ExperimentalFeatureNotEnabled"
}

/** A `callbackUrl` is not an absolute http(s) URL or a path. */
export class InvalidCallbackUrl extends AuthError {
  static override type: ErrorType = "InvalidCallbackUrl"
}

/** A state, PKCE, nonce or WebAuthn challenge check failed. */
export class InvalidCheck extends AuthError {
  static override type: ErrorType = "InvalidCheck"
}

/** An OAuth provider lacks an endpoint and has no issuer to discover it from. */
export class InvalidEndpoints extends AuthError {
  static override type: ErrorType = "InvalidEndpoints"
}

/** The provider named in the URL does not exist or cannot serve this route. */
export class InvalidProvider extends AuthError {
  static override type: ErrorType = "InvalidProvider"
}

/** A JWT session could not be read; logged, the session counts as absent. */
export class JWTSessionError extends AuthError {
  static override type: ErrorType = "JWTSessionError"
}

/** A feature needs an adapter and none is configured. */
export class MissingAdapter extends AuthError {
  static override type: ErrorType = "MissingAdapter"
}

/** The adapter lacks methods the configuration needs; the message names them. */
export class MissingAdapterMethods extends AuthError {
  static override type: ErrorType = "MissingAdapterMethods"
}

/** A credentials provider has no `authorize` function. */
export class MissingAuthorize extends AuthError {
  static override type: ErrorType = "MissingAuthorize"
}

/** A state-changing request came without a valid CSRF token. */
export class MissingCSRF extends SignInError {
  static override type: ErrorType = "MissingCSRF"
}

/** No secret is configured. Set `AUTH_SECRET` or the `secret` option. */
export class MissingSecret extends AuthError {
  static override type: ErrorType = "MissingSecret"
}

/** The spec's name for {@link MissingSecret}. */
export { MissingSecret as MissingSecretError }

/** The conditional-UI WebAuthn provider has no field with `autocomplete="... webauthn"`. */
export class MissingWebAuthnAutocomplete extends AuthError {
  static override type: ErrorType = "MissingWebAuthnAutocomplete"
}

/** The email of this OAuth account belongs to a user who signed in another way. */
export class OAuthAccountNotLinked extends SignInError {
  static override type: ErrorType = "OAuthAccountNotLinked"
}

/** The provider answered the callback with an error, or the exchange failed. */
export class OAuthCallbackError extends SignInError {
  static override type: ErrorType = "OAuthCallbackError"
}

/** A provider's `profile()` threw. */
export class OAuthProfileParseError extends AuthError {
  static override type: ErrorType = "OAuthProfileParseError"
}

/** Starting an OAuth sign-in failed. Shown as `?error=OAuthSignin`. */
export class OAuthSignInError extends SignInError {
  static override type: ErrorType = "OAuthSignInError"
}

/**
 * The store behind the adapter failed or did not answer in time (`adapterTimeout`), so the
 * request could not be completed; the {@link AdapterError} is in `cause.err`. It is not a
 * sign-out and not a configuration problem: the same request may succeed in a moment.
 *
 * - `GET /session` answers `503` with `Retry-After` and `{"error":"ServiceUnavailable"}`
 *   (never `200 null`, which would read as "signed out");
 * - sign-in, callback and sign-out land on the error page with `?error=ServiceUnavailable`
 *   (status 503, a "try again" message), and a failed sign-out keeps the session cookie;
 * - the integrations' server-side session readers throw it.
 *
 * @example
 * ```ts
 * import { ServiceUnavailable } from "@portcullis/core/errors"
 *
 * try {
 *   session = await getSession(req, authConfig)
 * } catch (error) {
 *   if (error instanceof ServiceUnavailable) return res.status(503).set("Retry-After", "5").send("Try again shortly")
 *   throw error
 * }
 * ```
 */
export class ServiceUnavailable extends AuthError {
  static override type: ErrorType = "ServiceUnavailable"
  /** Seconds a client should wait before retrying; sent as `Retry-After`. */
  retryAfter = 5
}

/** A database session could not be read; logged, the session counts as absent. */
export class SessionTokenError extends AuthError {
  static override type: ErrorType = "SessionTokenError"
}

/** Ending a session failed; the cause of a {@link ServiceUnavailable} when the store could not delete it. */
export class SignOutError extends AuthError {
  static override type: ErrorType = "SignOutError"
}

/** The URL names no action Portcullis serves. */
export class UnknownAction extends AuthError {
  static override type: ErrorType = "UnknownAction"
}

/** The configuration asks for something the session strategy cannot do. */
export class UnsupportedStrategy extends AuthError {
  static override type: ErrorType = "UnsupportedStrategy"
}

/** The host header is not trusted: set `AUTH_URL`, or `trustHost: true` behind a trusted proxy. */
export class UntrustedHost extends AuthError {
  static override type: ErrorType = "UntrustedHost"
}

/** A sign-in link is missing, used, expired or does not match its address. */
export class Verification extends AuthError {
  static override type: ErrorType = "Verification"
}

/** A passkey response did not verify. */
export class WebAuthnVerificationError extends AuthError {
  static override type: ErrorType = "WebAuthnVerificationError"
}

/** An option has the wrong shape; the message names it. */
export class InvalidConfig extends AuthError {
  static override type: ErrorType = "InvalidConfig"
}

/** The request body is larger than Portcullis accepts (1 MiB). Answered with 413. */
export class RequestTooLarge extends AuthError {
  static override type: ErrorType = "RequestTooLarge"
}

/** The action exists but not for this HTTP method. Answered with 405. */
export class MethodNotAllowed extends AuthError {
  static override type: ErrorType = "MethodNotAllowed"
}

/** The request is malformed (bad JSON, bad encoding, bad host). Answered with 400. */
export class InvalidRequest extends AuthError {
  static override type: ErrorType = "InvalidRequest"
}

/**
 * Too many attempts: a rate limit or a sign-in lockout refused the request before anything
 * was checked (`rateLimit` option, `docs/rate-limiting.md`). Known and unknown accounts get
 * the same answer, and so does a right password during a lockout. Answered with `429` and
 * `Retry-After` to fetch clients, else back to the sign-in page with `?error=RateLimited`.
 *
 * @example
 * ```ts
 * try {
 *   await signIn("credentials", form)
 * } catch (error) {
 *   if (error instanceof RateLimited) return `Too many attempts; try again in ${error.retryAfter} s`
 *   throw error
 * }
 * ```
 */
export class RateLimited extends SignInError {
  static override type: ErrorType = "RateLimited"
  /** Seconds until the client may try again; sent as `Retry-After`. */
  retryAfter: number

  constructor(message?: string, retryAfter = 60) {
    super(message)
    this.retryAfter = retryAfter
  }
}

/**
 * Session management (listing and revoking sessions, `docs/sessions.md`) cannot work with
 * this configuration: database sessions whose adapter has no `listSessions` (an Auth.js
 * adapter), or JWT sessions without `session.registry`. The message names what is missing.
 */
export class SessionManagementUnsupported extends AuthError {
  static override type: ErrorType = "SessionManagementUnsupported"
}

/** A session-management, two-factor enrollment or step-up call came from a request without a valid session (signed out, expired or revoked). */
export class NotSignedIn extends AuthError {
  static override type: ErrorType = "NotSignedIn"
}

/**
 * The second sign-in step (two-factor authentication) cannot go on: its challenge cookie is
 * missing, expired, tampered with or used up (too many wrong codes), or the user's 2FA
 * changed meanwhile. The user signs in again from the start.
 */
export class TwoFactorChallengeInvalid extends SignInError {
  static override type: ErrorType = "TwoFactorChallengeInvalid"
}

/**
 * A two-factor code given to the enrollment API (confirming, disabling, regenerating backup
 * codes) is wrong, malformed or already used.
 */
export class TwoFactorCodeInvalid extends AuthError {
  static override type: ErrorType = "TwoFactorCodeInvalid"
}

/**
 * An enrollment API call that does not fit the user's two-factor state: confirming with no
 * enrollment started, starting while 2FA is already on, or disabling when it is off.
 */
export class TwoFactorStateError extends AuthError {
  static override type: ErrorType = "TwoFactorStateError"
}

/**
 * A sensitive action (2FA enrollment, revoking every session, adding a passkey, an app's own
 * action gated with `requireStepUp`) needs a first factor proven recently in this session,
 * and there is none within `stepUp.maxAge`. The user re-authenticates at
 * `<basePath>/reauthenticate?callbackUrl=…` (the built-in actions redirect there) and tries again.
 */
export class StepUpRequired extends AuthError {
  static override type: ErrorType = "StepUpRequired"
}

/**
 * An audit trail query (`auditTrail`, an adapter's `listAuditRecords`) is malformed: an
 * unknown event type, a date that is none, a `limit` below 1, a `cursor` that is not one the
 * trail handed out. A client's input, so a 400 (an `InvalidRequest`) where an app passes it
 * through; a `limit` above 100 is clamped, not refused.
 */
export class InvalidAuditQuery extends InvalidRequest {
  static override type: ErrorType = "InvalidAuditQuery"
}

/**
 * The audit trail cannot be read or pruned with this configuration: its adapter has no
 * audit capability (`createAuditRecord`, `listAuditRecords`, `deleteAuditRecordsBefore`;
 * docs/adapters.md). The message names what is missing.
 */
export class AuditTrailUnsupported extends AuthError {
  static override type: ErrorType = "AuditTrailUnsupported"
}

/** Any Portcullis error class. */
export type AnyAuthError = InstanceType<
  | typeof AccessDenied | typeof AccountNotLinked | typeof AdapterError | typeof CallbackRouteError
  | typeof CredentialsSignin | typeof EmailSignInError | typeof InvalidCheck | typeof MissingCSRF
  | typeof OAuthAccountNotLinked | typeof OAuthCallbackError | typeof Verification
  | typeof WebAuthnVerificationError | typeof ServiceUnavailable | typeof AuthError
>

/**
 * Errors whose `type` may be shown to the user as `?error=<type>`. Every other error is
 * shown as `Configuration`, so internals never leak into URLs.
 */
const clientSafe = new Set<ErrorType>([
  "CredentialsSignin",
  "OAuthAccountNotLinked",
  "OAuthCallbackError",
  "AccessDenied",
  "Verification",
  "MissingCSRF",
  "AccountNotLinked",
  "WebAuthnVerificationError",
  "EmailSignInError",
  "OAuthSignInError",
  "ServiceUnavailable",
  "RateLimited",
  "TwoFactorChallengeInvalid",
  "StepUpRequired",
  "AccountSuspended",
])

/** Whether `error` may be named to the client (else it is reported as `Configuration`). */
export function isClientError(error: unknown): error is AuthError {
  return error instanceof AuthError && clientSafe.has(error.type)
}

/**
 * A stored password hash that `verifyPassword` (`@portcullis/core/password`) cannot read: in
 * no supported format, or with cost parameters beyond safe bounds. A data problem to fix, not
 * a wrong password — the message says which shape was found, never the hash.
 */
export class UnsupportedPasswordHash extends AuthError {
  static override type: ErrorType = "UnsupportedPasswordHash"
}

/** Why {@link PasswordRejected} was thrown: the `?error=` code the password forms show. */
export type PasswordRejection =
  | "InvalidEmail"
  | "PasswordTooShort"
  | "PasswordTooLong"
  | "PasswordTooWeak"
  /** The breached-password check (`policy.breached`) found the new password in breaches. */
  | "PasswordBreached"
  /** The breached-password check could not run and its `onError` is `"closed"`: try again later. */
  | "PasswordCheckUnavailable"
  | "PasswordMismatch"

/**
 * A password form's input was refused before anything was stored: the address is not an
 * address, the new password breaks the policy (too short, too long, too weak), or the
 * current password given to a change is wrong. With `policy.breached`, also a new password
 * found in breaches, or (`onError: "closed"`) one that could not be checked. Says nothing about whether an account
 * exists — every check here reads only the input (and, for a change, the signed-in
 * user's own hash). The form is shown again with `?error=<code>`.
 *
 * @example
 * ```ts
 * if (error instanceof PasswordRejected && error.code === "PasswordTooWeak") showHint()
 * ```
 */
export class PasswordRejected extends AuthError {
  static override type: ErrorType = "PasswordRejected"
  readonly code: PasswordRejection
  constructor(code: PasswordRejection, message: string) {
    super(message)
    this.code = code
  }
}

/** Why {@link ReauthRequired} was thrown. */
export type ReauthReason =
  /** The provider refused the stored refresh token (`invalid_grant`): revoked, expired or already used. */
  | "invalid_grant"
  /** An earlier refresh was refused and the account is marked; only a new sign-in clears the mark. */
  | "marked"
  /** The access token has expired and the provider gave no refresh token. */
  | "no_refresh_token"
  /** The user has no account with this provider (or the session carries none). */
  | "no_account"
  /** The request carries no session: nobody is signed in. */
  | "signed_out"

/**
 * The user must sign in with the provider again (re-consent) before Portcullis can get an
 * access token for them: the provider refused the refresh token, or there is none. The
 * account is marked as needing re-consent when the provider refused it, so later calls fail
 * fast without asking the provider; the next sign-in with that provider clears the mark.
 *
 * @example
 * ```ts
 * try {
 *   const { accessToken } = await getAccessToken(auth, { userId, provider: "google" })
 * } catch (e) {
 *   if (e instanceof ReauthRequired) return redirect("/auth/signin/google")
 *   throw e
 * }
 * ```
 */
export class ReauthRequired extends AuthError {
  static override type: ErrorType = "ReauthRequired"
  /** Why the user must sign in again. */
  readonly reason: ReauthReason
  /** The provider the user must sign in with. */
  readonly provider: string
  constructor(message: string, details: { reason: ReauthReason; provider: string } & ErrorCause) {
    super(message, details)
    this.reason = details.reason
    this.provider = details.provider
  }
}

/**
 * An access token could not be refreshed for now: the token endpoint did not answer (down,
 * slow, refused the connection), answered with a server error or an error other than
 * `invalid_grant`, or another instance held the refresh lock for too long. Nothing was
 * marked: the same call may succeed later.
 */
export class TokenRefreshFailed extends AuthError {
  static override type: ErrorType = "TokenRefreshFailed"
}
