/**
 * Input validation of the `useSignIn` and `useSignOut` actions, in the result shapes of
 * the Auth.js Qwik integration (zod's `flatten()` as Qwik City returns it): every field key
 * present, `undefined` or a list of messages. No zod: four fields do not need a schema library.
 */

export interface SignInInput {
  providerId?: string
  redirectTo?: string
  options?: { redirectTo?: string; [key: string]: unknown }
  authorizationParams?: string | URLSearchParams | Record<string, string>
}

export interface SignOutInput {
  redirectTo?: string
}

export interface SignInFieldErrors {
  authorizationParams: string[] | undefined
  options: string[] | undefined
  providerId: string[] | undefined
  redirectTo: string[] | undefined
}

export interface SignOutFieldErrors {
  redirectTo: string[] | undefined
}

/** What Qwik City's validator protocol expects back. */
export type Validated<T, E> = { success: true; data: T } | { success: false; status: number; error: { fieldErrors: E; formErrors: string[] } }

/** The action's value after a validation failure (`{failed: true, ...error}`). */
export type ValidationFailure<E> = { failed: true; fieldErrors: E; formErrors: string[] }

/** The action's value when validation passed (the action itself then redirects). */
export type ValidationSuccess = { failed: undefined; fieldErrors: undefined; formErrors: undefined }

export const validationSuccess: ValidationSuccess = Object.freeze({ failed: undefined, fieldErrors: undefined, formErrors: undefined }) as ValidationSuccess

function typeName(value: unknown): string {
  if (value === null) return "null"
  if (Array.isArray(value)) return "array"
  return typeof value
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * A destination must stay on this site: a path (`/account`, not `//host`) or an absolute
 * URL of this origin. Core would fall back to the site anyway; refusing here tells the
 * developer at once.
 */
function redirectToErrors(value: unknown, origin: string): string[] | undefined {
  if (value === undefined) return undefined
  if (typeof value !== "string") return [`Expected string, received ${typeName(value)}`]
  if (value.startsWith("/") && !value.startsWith("//") && !value.startsWith("/\\")) return undefined
  try {
    if (new URL(value).origin === origin) return undefined
  } catch {
    // not an absolute URL
  }
  return ["Must be a path on this site (/...) or a URL of this origin"]
}

export function validateSignIn(data: unknown, origin: string): Validated<SignInInput, SignInFieldErrors> {
  if (!isPlainObject(data)) return { success: false, status: 400, error: { fieldErrors: { authorizationParams: undefined, options: undefined, providerId: undefined, redirectTo: undefined }, formErrors: [`Expected object, received ${typeName(data)}`] } }
  const { providerId, redirectTo, options, authorizationParams } = data
  const fieldErrors: SignInFieldErrors = {
    authorizationParams: undefined,
    options: undefined,
    providerId: providerId === undefined || (typeof providerId === "string" && providerId !== "") ? undefined : [typeof providerId === "string" ? "Must not be empty" : `Expected string, received ${typeName(providerId)}`],
    redirectTo: redirectToErrors(redirectTo, origin),
  }
  if (options !== undefined) {
    if (!isPlainObject(options)) fieldErrors.options = [`Expected object, received ${typeName(options)}`]
    else {
      const nested = redirectToErrors(options.redirectTo, origin)
      if (nested) fieldErrors.options = nested.map((m) => `redirectTo: ${m}`)
    }
  }
  if (authorizationParams !== undefined && typeof authorizationParams !== "string" && !(authorizationParams instanceof URLSearchParams)) {
    if (!isPlainObject(authorizationParams)) fieldErrors.authorizationParams = [`Expected string, URLSearchParams or record of strings, received ${typeName(authorizationParams)}`]
    else {
      const bad = Object.entries(authorizationParams).filter(([, v]) => typeof v !== "string").map(([k]) => k)
      if (bad.length) fieldErrors.authorizationParams = bad.map((k) => `${k}: Expected string`)
    }
  }
  if (Object.values(fieldErrors).some(Boolean)) return { success: false, status: 400, error: { fieldErrors, formErrors: [] } }
  const out: SignInInput = {}
  if (providerId !== undefined) out.providerId = providerId as string
  if (redirectTo !== undefined) out.redirectTo = redirectTo as string
  if (options !== undefined) out.options = options as SignInInput["options"]
  if (authorizationParams !== undefined) out.authorizationParams = authorizationParams as SignInInput["authorizationParams"]
  return { success: true, data: out }
}

export function validateSignOut(data: unknown, origin: string): Validated<SignOutInput, SignOutFieldErrors> {
  if (!isPlainObject(data)) return { success: false, status: 400, error: { fieldErrors: { redirectTo: undefined }, formErrors: [`Expected object, received ${typeName(data)}`] } }
  const redirectTo = redirectToErrors(data.redirectTo, origin)
  if (redirectTo) return { success: false, status: 400, error: { fieldErrors: { redirectTo }, formErrors: [] } }
  return { success: true, data: data.redirectTo === undefined ? {} : { redirectTo: data.redirectTo as string } }
}

/** The value an action ends with after a failed validation, as Qwik City builds it. */
export function failureValue<E>(result: { error: { fieldErrors: E; formErrors: string[] } }): ValidationFailure<E> {
  return { failed: true, ...result.error }
}
