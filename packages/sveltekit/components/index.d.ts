import type { Snippet, SvelteComponent } from "svelte"

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
  /** Extra inputs inside the form, e.g. username and password for credentials (or the `credentials` slot). */
  credentials?: Snippet
  /** Replaces the email field shown for email providers (or the `email` slot). */
  email?: Snippet
  /** Content of the submit button (or the `submitButton` slot). */
  submitButton?: Snippet
  [attribute: string]: unknown
}

/** The named slots of {@link SignIn}, as Auth.js's component has them; each can be a snippet of the same name instead. */
export interface SignInSlots {
  credentials: {}
  email: {}
  submitButton: {}
}

/** Props of {@link SignOut}. */
export interface SignOutProps {
  /** Path of the page whose form action is `signOut`; default `signout` (→ `/signout`). */
  signOutPage?: string
  /** From `event.locals.csrfToken()`: posted as `csrfToken`, and the action has core check it. */
  csrfToken?: string
  options?: { redirectTo?: string }
  className?: string
  /** Content of the submit button (or the `submitButton` slot). */
  submitButton?: Snippet
  [attribute: string]: unknown
}

/** The named slot of {@link SignOut}, as Auth.js's component has it; a `submitButton` snippet works too. */
export interface SignOutSlots {
  submitButton: {}
}

/**
 * A form posting to the app's sign-in form action. A class type (not `Component`) because
 * only that lets an app fill named slots, as with Auth.js; snippets work as well.
 *
 * @example
 * ```svelte
 * <SignIn provider="github" csrfToken={data.csrfToken}>
 *   <div slot="submitButton" class="buttonPrimary">Sign in with GitHub</div>
 * </SignIn>
 * ```
 */
export declare class SignIn extends SvelteComponent<SignInProps, Record<string, CustomEvent<unknown>>, SignInSlots> {}
/**
 * A form posting to the app's sign-out form action.
 *
 * @example
 * ```svelte
 * <SignOut csrfToken={data.csrfToken}>{#snippet submitButton()}Leave{/snippet}</SignOut>
 * ```
 */
export declare class SignOut extends SvelteComponent<SignOutProps, Record<string, CustomEvent<unknown>>, SignOutSlots> {}
