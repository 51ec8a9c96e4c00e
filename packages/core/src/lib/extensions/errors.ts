/**
 * The error extensions refuse with. Kept apart from `errors.ts` (and exported by
 * `@portcullis/core/extension`) so an app without extensions loads none of it.
 * @module
 */
import { AuthError, SignInError, type ErrorType } from "../../errors.js"

/**
 * An extension refused a request for a reason of the client's making — a name that is taken,
 * a role the caller may not grant, an invitation for someone else — with the HTTP `status`
 * to answer (400–409, 422) and a stable `code` an app can switch on (`slug-taken`,
 * `forbidden`, `not-found`). Logged as a rate-limited warning (`extension-refused`), never
 * with a stack. Extensions throw it from route handlers and server functions.
 *
 * @example
 * ```ts
 * throw new ExtensionRequestError("forbidden", "Only owners may delete the organization", 403)
 * ```
 */
export class ExtensionRequestError extends AuthError {
  static override type: ErrorType = "ExtensionRequestError"
  /** A stable, kebab-case reason (`slug-taken`), the `error` of a JSON answer. */
  readonly code: string
  /** The HTTP status to answer with. */
  readonly status: number

  constructor(code: string, message: string, status = 400) {
    super(message)
    this.code = code
    this.status = status >= 400 && status < 500 ? status : 400
  }
}


/**
 * An extension's sign-in gate (`Extension.signInGate`, e.g. the admin console's ban) refused
 * the user at the moment a sign-in would become a session — by any provider kind. Shown on
 * the sign-in page as `?error=AccountSuspended`; the reason stays in the server log. Here,
 * not in `errors.ts`, so an app without extensions loads none of it.
 */
export class AccountSuspended extends SignInError {
  static override type: ErrorType = "AccountSuspended"
}
