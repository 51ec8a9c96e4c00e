import type { Component, Snippet } from "svelte"

/** Props of {@link SignIn}. */
export interface SignInProps {
  /** Provider id; without one the form leads to the sign-in page. */
  provider?: string
  /** Path of the page whose form action is `signIn`; default `signin` (→ `/signin`). */
  signInPage?: string
  /** From `event.locals.csrfToken()`: posted as `csrfToken`, and the action has core check it. */
  csrfToken?: string
  /** `redirectTo` and any extra fields, posted as hidden inputs. */
  options?: Record<string, string | number | boolean | undefined> | FormData
  /** Parameters for the provider's authorization URL (`authorizationParams-<name>` fields). */
  authorizationParams?: string | string[][] | Record<string, string> | URLSearchParams
  className?: string
  /** Extra inputs inside the form, e.g. username and password for credentials. */
  credentials?: Snippet
  /** Content of the submit button. */
  submitButton?: Snippet
  [attribute: string]: unknown
}

/** Props of {@link SignOut}. */
export interface SignOutProps {
  /** Path of the page whose form action is `signOut`; default `signout` (→ `/signout`). */
  signOutPage?: string
  /** From `event.locals.csrfToken()`: posted as `csrfToken`, and the action has core check it. */
  csrfToken?: string
  options?: { redirectTo?: string }
  className?: string
  /** Content of the submit button. */
  submitButton?: Snippet
  [attribute: string]: unknown
}

/** A form posting to the app's sign-in form action. */
export declare const SignIn: Component<SignInProps>
/** A form posting to the app's sign-out form action. */
export declare const SignOut: Component<SignOutProps>
