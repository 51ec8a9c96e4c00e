/**
 * The WebAuthn kind's loader, imported only by the WebAuthn and Passkey provider functions
 * (`lib/kinds/provided.ts` says why).
 * @module
 */
export const loadWebAuthnKind = async () => (await import("./webauthn.js")).webauthnKind
