import { AdapterError, AuthError, RateLimited, ServiceUnavailable, type ErrorType } from "../errors.js"
import type { LoggerInstance, WarningCode } from "../base-types.js"
import type { LogLimiter } from "./log-limiter.js"
import { causeOf, type StoreHealth } from "./store-health.js"

/** What {@link report} needs of a configuration. */
export interface Reporting {
  logger: LoggerInstance
  logLimiter: LogLimiter
  storeHealth: StoreHealth
}

/**
 * Refusals a client causes at will — a forged or stale form, link, callback, cookie or
 * body, a wrong password — and the warning each is logged under. None is a fault of the
 * app, and an attacker can send millions: each is a rate-limited warning (the first of a
 * type per minute, then a count), with no stack. The key of a window is (code, type), a
 * closed set.
 */
const refusals: Partial<Record<ErrorType, WarningCode>> = {
  MissingCSRF: "csrf-refused",
  Verification: "verification-refused",
  InvalidCheck: "oauth-check-refused",
  OAuthCallbackError: "oauth-check-refused",
  TwoFactorChallengeInvalid: "challenge-refused",
  WebAuthnVerificationError: "challenge-refused",
  InvalidRequest: "request-malformed",
  RequestTooLarge: "request-malformed",
  MethodNotAllowed: "request-malformed",
  UnknownAction: "request-malformed",
  InvalidProvider: "request-malformed",
  InvalidCallbackUrl: "request-malformed",
  // An address the normaliser refused (missing, too long, several): the form's input. A
  // sign-in email that could not be sent is the same type with the sender's error as its
  // cause: an outage of the mail server, logged in full (`causeOfError`).
  EmailSignInError: "request-malformed",
  CredentialsSignin: "credentials-refused",
  PasswordRejected: "credentials-refused",
  AccessDenied: "sign-in-refused",
  AccountNotLinked: "sign-in-refused",
  OAuthAccountNotLinked: "sign-in-refused",
  NotSignedIn: "sign-in-refused",
  ExtensionRequestError: "extension-refused",
  StepUpRequired: "sign-in-refused",
  AccountSuspended: "sign-in-refused",
  TwoFactorCodeInvalid: "sign-in-refused",
  TwoFactorStateError: "sign-in-refused",
}

/** How an error is logged: see docs/observability.md ("What is logged at which level"). */
export type Cause = "client" | "outage" | "bug" | "limited"

/** Whether `error` is a client's refusal, a store outage, our (or the app's) bug, or a rate limit (logged by the limiter). */
export function causeOfError(error: unknown): Cause {
  if (error instanceof RateLimited) return "limited"
  if (error instanceof ServiceUnavailable || error instanceof AdapterError || hasStoreFailure(error)) return "outage"
  if (error instanceof AuthError && refusals[error.type]) {
    // `signIn` threw (rather than returning false): the app's code failed, a bug to see in full.
    if (error.type === "AccessDenied" && causeOf(error) instanceof Error) return "bug"
    // The mail server refused or did not answer: not the client's doing.
    if (error.type === "EmailSignInError" && causeOf(error) instanceof Error) return "bug"
    return "client"
  }
  return "bug"
}

/**
 * Logs an error by its cause: a client's refusal as a rate-limited warning without a stack,
 * a store outage through the store's tracker (first failure with its chain, then counts,
 * then one "recovered" line), a rate limit not at all (the limiter warned already), and
 * anything else — a bug of ours or the app's — as an error with its stack.
 */
export function report(config: Reporting, error: unknown): void {
  // A failure a store's wrapper registered (the mail sender's `EmailSignInError`) is an
  // outage whatever its type: a down mail server fails every sign-in a client asks for.
  if (error instanceof Error && config.storeHealth.raisedByStore(error)) {
    config.storeHealth.failed(error)
    return
  }
  switch (causeOfError(error)) {
    case "limited":
      return
    case "client": {
      const refusal = error as AuthError
      config.logLimiter.warn(refusals[refusal.type]!, refusal.type, details(refusal))
      return
    }
    case "outage":
      config.storeHealth.failed(error as Error)
      return
    case "bug":
      config.logger.error(error as Error)
  }
}

/** A store's error somewhere down the chain (a `SessionTokenError` around an `AdapterError`). */
function hasStoreFailure(error: unknown): boolean {
  let link = error instanceof Error ? causeOf(error) : undefined
  for (let depth = 0; depth < 8 && link instanceof Error; depth++) {
    if (link instanceof AdapterError || link instanceof ServiceUnavailable) return true
    link = causeOf(link)
  }
  return false
}

/**
 * The details of an error's cause a refusal's line may carry: the OAuth failure's step and
 * the provider's answer (`lib/oauth/failure.ts` keeps nothing else there), never a token.
 */
const safeDetails = ["providerId", "step", "status", "error", "error_description", "claim", "reason"] as const

/**
 * What a refusal's line carries: its message and the error's `code`, cut short, its cause's
 * name and message, and the safe details of its cause. Messages never hold token material
 * (docs/errors.md).
 */
function details(error: AuthError): Record<string, unknown> {
  const out: Record<string, unknown> = { message: cut(error.message.replace(/\s*Read more at \S+$/, ""), 200) }
  const code = (error as { code?: unknown }).code
  if (typeof code === "string") out.code = cut(code, 64)
  // The cause's name and message: what an OAuth step failed on ("unexpected JWT alg"). The
  // OAuth failures keep only those of the library's error (`safeCause`), never its body.
  const under = causeOf(error)
  if (under instanceof Error) out.cause = cut(`${under.name}: ${under.message}`, 200)
  for (const name of safeDetails) {
    const value = error.cause?.[name]
    if (typeof value === "string") out[name] = cut(value, 200)
    else if (typeof value === "number") out[name] = value
  }
  return out
}

function cut(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length)}…` : text
}
