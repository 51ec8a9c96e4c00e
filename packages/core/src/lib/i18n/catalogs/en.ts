import type { Messages } from "../catalog.js"

const TRY_ANOTHER_ACCOUNT = "We could not sign you in with that account. Please try again, or use a different account."

/** English: the default, and the fallback for every key another catalog lacks. */
export const en: Messages = {
  dir: "ltr",
  layout: { logoAlt: "Site logo" },
  signin: {
    title: "Sign In",
    heading: "Sign in",
    or: "or",
    noProviders: "No sign-in methods are available.",
    signInWith: "Sign in with {provider}",
    emailLabel: "Email",
    errors: {
      default: "Something went wrong while signing you in. Please try again.",
      Signin: TRY_ANOTHER_ACCOUNT,
      OAuthSignin: TRY_ANOTHER_ACCOUNT,
      OAuthCallbackError: TRY_ANOTHER_ACCOUNT,
      OAuthCreateAccount: TRY_ANOTHER_ACCOUNT,
      EmailCreateAccount: TRY_ANOTHER_ACCOUNT,
      Callback: TRY_ANOTHER_ACCOUNT,
      OAuthAccountNotLinked:
        "This email address is already linked to another way of signing in. To keep your account safe, please sign in the way you used before.",
      EmailSignin: "We could not send the sign-in email. Please check the address and try again.",
      // Deliberately vague: naming the wrong field would tell an attacker which half was right.
      CredentialsSignin: "Sign-in failed. Please check the details you provided and try again.",
      SessionRequired: "Please sign in to see this page.",
      MissingCSRF: "This form has expired. Please try signing in again.",
      AccessDenied: "You do not have permission to sign in.",
      Verification: "That sign-in link is no longer valid. It may have expired or already been used. Please request a new one.",
      WebAuthnVerificationError: "We could not verify your passkey. Please try again.",
      AccountNotLinked: "This passkey or email belongs to another account. Sign in to that account first.",
      // The same words whether or not the account exists, and whether or not the password was right.
      RateLimited: "Too many sign-in attempts. For your security, please wait a few minutes before trying again.",
    },
  },
  signout: { title: "Sign Out", heading: "Sign out", question: "Are you sure you want to sign out?", button: "Sign out" },
  error: {
    title: "Error",
    code: "Error code: {code}",
    signIn: "Sign in",
    signInAgain: "Sign in again",
    tryAgain: "Try again",
    pages: {
      default: { heading: "Something went wrong", message: "Something went wrong. Please try again later." },
      Configuration: { heading: "Server error", message: "There is a problem with the server configuration. Check the server logs for more information." },
      AccessDenied: { heading: "Access denied", message: "You do not have permission to sign in." },
      Verification: { heading: "Link no longer valid", message: "The sign-in link is no longer valid. It may have expired, or it may have been used already." },
      // An outage, not a refusal: nothing the user did was wrong, and nothing was changed.
      ServiceUnavailable: { heading: "Temporarily unavailable", message: "We could not reach the sign-in service just now. Nothing was changed; please try again in a moment." },
    },
  },
  verifyRequest: {
    title: "Verify Request",
    heading: "Check your email",
    sent: "We have sent you a sign-in link. Open it on this device to finish signing in.",
    once: "The link can only be used once and expires after a while.",
    backTo: "Back to {site}",
    theSite: "the site",
  },
  confirm: {
    title: "Sign in",
    heading: "Sign in to {host}",
    continueAs: "Continue as {email}?",
    button: "Sign in",
    ignore: "If you did not ask to sign in, close this page: nothing happens until you press the button.",
  },
  email: {
    subject: "Sign in to {host}",
    heading: "Sign in to {host}",
    button: "Sign in",
    expires: "The link works once and expires in {duration}.",
    ignore: "If you did not request this email you can safely ignore it.",
  },
  passkey: {
    unsupported: "This browser does not support passkeys.",
    cancelled: "The passkey request was cancelled or timed out. Please try again.",
    optionsRefused: "Enter the email of a new account, or sign in first to add a passkey.",
    alreadyRegistered: "This passkey is already registered. Sign in with it instead.",
    failed: "Passkeys are not working right now. Please try again.",
  },
  password: {
    passwordLabel: "Password",
  },
}
