/**
 * The password kind's loader, imported only by the Password provider function
 * (`lib/kinds/provided.ts` says why): Argon2 and the strength estimator come with it.
 * @module
 */
export const loadPasswordKind = async () => (await import("./password.js")).passwordKind
