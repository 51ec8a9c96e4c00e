/**
 * The shape of a message catalog: every sentence the built-in pages and emails show, in
 * one language. Sentences are plain strings with `{name}` placeholders, never functions,
 * so a catalog is data an app can override key by key (`i18n.messages` in the config) and
 * a test can compare catalogs (`test/i18n/catalogs.test.ts`: same keys, same placeholders).
 * @module
 */

/** Sign-in page alerts, by `?error=` code; `default` for every other code. */
export interface SigninErrorMessages {
  default: string
  Signin: string
  OAuthSignin: string
  OAuthCallbackError: string
  OAuthCreateAccount: string
  EmailCreateAccount: string
  Callback: string
  OAuthAccountNotLinked: string
  EmailSignin: string
  CredentialsSignin: string
  SessionRequired: string
  MissingCSRF: string
  AccessDenied: string
  Verification: string
  WebAuthnVerificationError: string
  AccountNotLinked: string
  RateLimited: string
  /** A sign-in gate refused the account (a ban): the same words whatever the reason. */
  AccountSuspended: string
}

/** Error page heading and sentence, by `?error=` code; `default` for every other code. */
export interface ErrorPageMessages {
  default: { heading: string; message: string }
  Configuration: { heading: string; message: string }
  AccessDenied: { heading: string; message: string }
  Verification: { heading: string; message: string }
  ServiceUnavailable: { heading: string; message: string }
}

/** One language's sentences. */
export interface Messages {
  /** Text direction of the language: `rtl` for Arabic, Hebrew, Persian, Urdu. */
  dir: "ltr" | "rtl"
  layout: { logoAlt: string }
  signin: {
    /** The document `<title>`; English keeps Auth.js's "Sign In", which apps' browser tests look for. */
    title: string
    heading: string
    or: string
    noProviders: string
    /** `{provider}`: the provider's name. */
    signInWith: string
    /** The passkey form's sign-up button; `{provider}`: the provider's name. */
    signUpWith: string
    emailLabel: string
    errors: SigninErrorMessages
  }
  /** The identifier-first sign-in page (the default layout; docs/pages.md). */
  identifier: {
    /** The document `<title>`, the same words as the heading. */
    title: string
    /** The button of the first step, after the email field. */
    continue: string
    /** The second step's line above the methods; `{email}`: the address typed. */
    signingInAs: string
    /** The link back to the first step. */
    changeEmail: string
    /** The magic-link button. */
    emailLink: string
    /** The password sign-in's alert when the password was right but the address is unconfirmed. */
    unverified: string
    /** Names of the built-in provider kinds, used while a provider keeps its default English name. */
    kinds: { password: string; passkey: string; email: string }
  }
  signout: { title: string; heading: string; question: string; button: string }
  error: {
    title: string
    /** `{code}`: the code, shown in a `<code>` element. */
    code: string
    signIn: string
    signInAgain: string
    tryAgain: string
    pages: ErrorPageMessages
  }
  verifyRequest: {
    title: string
    heading: string
    sent: string
    once: string
    /** `{site}`: the site's host. */
    backTo: string
    theSite: string
  }
  /** The interstitial page of a magic link (unless the provider sets `interstitial: false`). */
  confirm: {
    title: string
    /** `{host}`: the site's host. */
    heading: string
    /** `{email}`: the address, shown in bold. */
    continueAs: string
    button: string
    ignore: string
  }
  /** The sign-in email. */
  email: EmailMessages
  /** The second step of a sign-in with two-factor authentication on (`<basePath>/two-factor`). */
  twoFactor: {
    title: string
    heading: string
    instructions: string
    codeLabel: string
    backupHint: string
    remember: string
    button: string
    wrongCode: string
    /** `{count}`: attempts left before the user must sign in again. */
    attemptsLeft: string
    /** On the sign-in page (`?error=TwoFactorChallengeInvalid`): the step expired or had too many wrong codes. */
    expired: string
  }
  /** The step-up page (`<basePath>/reauthenticate`): confirm who you are before a sensitive action. */
  reauthenticate: {
    title: string
    heading: string
    /** Why the page is shown. */
    instructions: string
    passwordLabel: string
    button: string
    /** After a wrong password. */
    wrongPassword: string
    /** After too many attempts (the sign-in lockout). */
    tooManyAttempts: string
    /** Before the link to the sign-in page, for every other way to prove who you are. */
    otherWays: string
    signInAgain: string
  }
  /** Said by the sign-in page's passkey script. */
  passkey: {
    unsupported: string
    cancelled: string
    optionsRefused: string
    alreadyRegistered: string
    failed: string
  }
  /** The password provider's forms, pages and emails (docs/passwords.md). */
  password: {
    passwordLabel: string
    newPasswordLabel: string
    currentPasswordLabel: string
    /** Link from the sign-in page to the sign-up page. */
    createAccount: string
    /** Link from the sign-in page to the forgot-password page. */
    forgotPassword: string
    signupTitle: string
    signupButton: string
    /** `{min}`: the shortest password accepted. */
    signupHint: string
    forgotTitle: string
    forgotIntro: string
    forgotButton: string
    resetTitle: string
    resetButton: string
    /** After sign-up and forgot-password: the same page whether or not the address has an account. */
    sentTitle: string
    sent: string
    /** The page a verification link opens; nothing is verified until its button is pressed. */
    verifyTitle: string
    /** `{email}`: the address, shown in bold; `{host}`: the site's host. */
    verifyIntro: string
    verifyButton: string
    /** The confirm page's optional field for the password chosen at sign-up. */
    verifyPasswordLabel: string
    /** Under that field: typing it keeps the password; whoever did not sign up leaves it empty. */
    verifyPasswordHint: string
    verifyIgnore: string
    verifiedTitle: string
    verified: string
    /** After a confirmation without the sign-up's password (empty or wrong): the account is new and has no password. */
    verifiedNoPassword: string
    resetDoneTitle: string
    resetDone: string
    backToSignIn: string
    /** Form alerts, by `?error=` code; `{min}` in `PasswordTooShort`. */
    errors: PasswordErrorMessages
    /** The email with the link that verifies a new account's address. */
    verifyEmail: EmailMessages
    /** The email sent when someone signs up with an address that already has an account. */
    existingAccount: EmailMessages
    /** The email with the password reset link. */
    resetEmail: EmailMessages
  }
  /** Security notices (docs/notifications.md): the email sent when something changed on the account. */
  notice: NoticeMessages
}

/**
 * The sentences of the security notices. A notice goes to the senders in the shape of
 * {@link EmailMessages}: `subject` and `heading` from its kind, the button, the facts (when,
 * which device) in the place of `expires`, and {@link NoticeMessages.notYou} as `ignore`.
 */
export interface NoticeMessages {
  /** The button when the site has passwords: it opens the forgot-password page. */
  resetButton: string
  /** The button otherwise: it opens the sign-in page. */
  signInButton: string
  /** `{time}`: the date and time, in UTC. */
  when: string
  /** `{device}`: browser and system (or `unknownDevice`); `{address}`: the client address. */
  device: string
  /** `{device}`, when the client address is not known. */
  deviceOnly: string
  /** `{browser}` and `{os}`: names such as "Firefox" and "Windows". */
  deviceName: string
  unknownDevice: string
  /** The last sentence: nothing to do if it was them, and what to do if not. */
  notYou: string
  /** `{host}` in each `subject` and `heading`. */
  kinds: {
    passwordChanged: NoticeKindMessages
    passwordReset: NoticeKindMessages
    twoFactorEnabled: NoticeKindMessages
    twoFactorDisabled: NoticeKindMessages
    backupCodesRegenerated: NoticeKindMessages
    passkeyAdded: NoticeKindMessages
    emailChanged: NoticeKindMessages
    newDevice: NoticeKindMessages
    twoFactorReset: NoticeKindMessages
  }
}

/** One notice kind's subject and heading; `{host}` in both. */
export interface NoticeKindMessages {
  subject: string
  heading: string
}

/** The sentences of one email (the sign-in email's and the password emails'), which every sender renders. */
export interface EmailMessages {
  /** `{host}`. */
  subject: string
  /** `{host}`, shown in bold. */
  heading: string
  button: string
  /** `{duration}`: "24 hours", written by `Intl.NumberFormat` in the same language. */
  expires: string
  ignore: string
}

/** Password form alerts, by `?error=` code. */
export interface PasswordErrorMessages {
  default: string
  InvalidEmail: string
  PasswordTooShort: string
  PasswordTooLong: string
  PasswordTooWeak: string
  /** The breached-password check found it (`policy.breached`). */
  PasswordBreached: string
  /** The breached-password check could not run, and fails closed. */
  PasswordCheckUnavailable: string
  PasswordMismatch: string
}

/** A partial catalog, as apps override it: any key at any depth. */
export type MessageOverrides = DeepPartial<Messages>

type DeepPartial<T> = { [K in keyof T]?: T[K] extends string ? T[K] : DeepPartial<T[K]> }
