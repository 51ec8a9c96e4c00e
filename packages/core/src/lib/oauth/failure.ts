import * as o from "oauth4webapi"
import { AccessDenied, AuthError, InvalidCheck, OAuthCallbackError, OAuthSignInError, type ErrorCause } from "../../errors.js"
import { BackChannelError } from "./http.js"

/** The step of a callback that failed, named in the server log. */
export type CallbackStep = "discovery" | "authorization response" | "token" | "id_token" | "userinfo"

/**
 * What a failure may say in the server log. oauth4webapi errors carry the offending
 * response body or claims in `cause`, which hold tokens, so they are never passed on:
 * only name, code, message and stack are copied (T65).
 */
export function safeCause(error: unknown, details: Record<string, unknown>): ErrorCause {
  if (!(error instanceof Error)) return { ...details, reason: typeof error === "string" ? error.slice(0, 300) : "non-error thrown" }
  const err = new Error(error.message.slice(0, 300))
  err.name = error.name
  err.stack = error.stack
  const code = (error as { code?: unknown }).code
  return { ...details, err, ...(typeof code === "string" && { code }) }
}

/** A failure while starting a sign-in: {@link AuthError}s pass, anything else is `OAuthSignin`. */
export function signinFailure(error: unknown, providerId: string): AuthError {
  if (error instanceof AuthError) return error
  return new OAuthSignInError(`Could not start the sign-in with "${providerId}"`, safeCause(error, { providerId }))
}

/**
 * A failure while finishing a sign-in. A nonce that does not match is a failed check (an
 * injected code or a replayed id_token), like a wrong state; every other protocol
 * failure is the provider's: `OAuthCallbackError`. The provider's `error_description`
 * is logged, never shown (T11).
 */
export function callbackFailure(error: unknown, providerId: string, step: CallbackStep): AuthError {
  if (error instanceof AuthError) return error
  if (error instanceof o.AuthorizationResponseError) {
    const details = { providerId, step, error: error.error, error_description: error.error_description?.slice(0, 300) }
    if (error.error === "access_denied") return new AccessDenied("The user or the provider denied the authorization", details)
    return new OAuthCallbackError("The provider answered the authorization with an error", details)
  }
  if (error instanceof o.ResponseBodyError) {
    return new OAuthCallbackError(`The ${step} endpoint answered with an error`, {
      providerId,
      step,
      status: error.status,
      error: error.error,
      error_description: error.error_description?.slice(0, 300),
    })
  }
  if (error instanceof o.OperationProcessingError && error.code === o.JWT_CLAIM_COMPARISON && claimOf(error) === "nonce") {
    return new InvalidCheck("The id_token nonce is not this browser's nonce", safeCause(error, { providerId, step }))
  }
  const weak = weakRsaKeyBits(error)
  if (weak !== undefined) {
    return new OAuthCallbackError(
      `The ${step} of "${providerId}" is signed with a ${weak}-bit RSA key; keys under ${MIN_RSA_BITS} bits are refused`,
      safeCause(error, { providerId, step, reason: "weak-rsa-key", modulusLength: weak }),
    )
  }
  const timeout = error instanceof Error && (error.name === "TimeoutError" || (error.cause as Error | undefined)?.name === "TimeoutError")
  const message = timeout
    ? `The ${step} request to "${providerId}" timed out`
    : error instanceof BackChannelError
      ? `The ${step} request to "${providerId}" was refused: ${error.message}`
      : `The ${step} step with "${providerId}" failed`
  return new OAuthCallbackError(message, safeCause(error, { providerId, step, ...(error instanceof o.OperationProcessingError && { claim: claimOf(error) }) }))
}

/** The smallest RSA modulus accepted for a provider's signature (T20; NIST SP 800-131A). */
const MIN_RSA_BITS = 2048

/**
 * The modulus length of the key oauth4webapi refused as too short, if that is what
 * `error` is. oauth4webapi checks every RSA key it verifies with (`modulusLength` of the
 * imported key, at least 2048) and names the key as the error's cause; reading that
 * cause, rather than the message text, keeps the log line exact across its versions.
 */
function weakRsaKeyBits(error: unknown): number | undefined {
  if (!(error instanceof o.UnsupportedOperationError)) return undefined
  const key = error.cause
  if (!(key instanceof CryptoKey)) return undefined
  const { name, modulusLength } = key.algorithm as RsaHashedKeyAlgorithm
  if (!name.startsWith("RSA") || typeof modulusLength !== "number") return undefined
  return modulusLength < MIN_RSA_BITS ? modulusLength : undefined
}

function claimOf(error: o.OperationProcessingError): string | undefined {
  const claim = (error.cause as { claim?: unknown } | undefined)?.claim
  return typeof claim === "string" ? claim : undefined
}
