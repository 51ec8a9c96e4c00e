/**
 * The namespaces of the verification-token table. Magic links, password links, passkey
 * challenges and two-factor challenges share it (Auth.js's adapter has one such table); a
 * magic link's identifier is the address itself, so every other kind of row lives under a
 * prefix that names it, and
 * the magic-link callback refuses those prefixes — a row of another kind is never a
 * sign-in link, whatever token a client writes.
 * @module
 */

/** The identifier of a password link's row: `password-verify:<address>` or `password-reset:<address>`. */
export function passwordTokenIdentifier(purpose: "verify" | "reset", email: string): string {
  return `password-${purpose}:${email}`
}

/** The identifier under which a passkey provider's outstanding challenges are recorded. */
export function webauthnChallengeIdentifier(providerId: string): string {
  return `webauthn-challenge:${providerId}`
}

/**
 * The identifier under which a user's outstanding two-factor challenges are recorded: each
 * is a row until its code passes, and taking the row is what lets one copy sign in.
 */
export function twoFactorChallengeIdentifier(userId: string): string {
  return `two-factor-challenge:${userId}`
}

/**
 * Whether `identifier` is in one of the namespaces above, or `email-change:` (the account
 * center's links, named in `extensions/account/email.ts`: this module is on the startup
 * path and carries only the prefix) — not an address a link was sent to.
 */
export function isReservedIdentifier(identifier: string): boolean {
  return /^(?:password-(?:verify|reset)|webauthn-challenge|two-factor-challenge|email-change):/.test(identifier)
}
