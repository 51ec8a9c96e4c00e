/**
 * How credentials are stored. The browser and `@simplewebauthn/server` speak base64url;
 * the adapter stores `credentialID` and `credentialPublicKey` as standard, padded base64,
 * exactly as Auth.js writes them, so authenticators stored by Auth.js keep working and
 * ours work there.
 * @module
 */
import { isoBase64URL } from "@simplewebauthn/server/helpers"

const BASE64URL = /^[A-Za-z0-9_-]*$/
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** Bytes of a base64url string (no padding); `undefined` when it is not one. */
export function fromBase64Url(value: string): Uint8Array<ArrayBuffer> | undefined {
  // A length of 1 mod 4 cannot come from any byte string.
  if (!BASE64URL.test(value) || value.length % 4 === 1) return undefined
  return isoBase64URL.toBuffer(value, "base64url")
}

/** Standard, padded base64 of `bytes`: the storage form. */
export function toBase64(bytes: Uint8Array<ArrayBuffer>): string {
  return isoBase64URL.fromBuffer(bytes, "base64")
}

/** Bytes of a stored (standard base64) value. Auth.js wrote the same form. */
export function fromBase64(value: string): Uint8Array<ArrayBuffer> {
  if (!BASE64.test(value)) throw new TypeError("A stored WebAuthn value is not base64")
  return isoBase64URL.toBuffer(value, "base64")
}

/** The browser's credential id (base64url) in storage form, or `undefined` when malformed. */
export function storedCredentialId(browserId: string): string | undefined {
  const bytes = fromBase64Url(browserId)
  return bytes && bytes.length > 0 ? toBase64(bytes) : undefined
}

/** A stored credential id as the browser and the server library want it (base64url). */
export function browserCredentialId(storedId: string): string {
  return isoBase64URL.fromBuffer(fromBase64(storedId), "base64url")
}

/** Transports are stored comma-joined (`"internal,hybrid"`), or `null` when unknown. */
export function transportsToString(transports: unknown): string | null {
  if (!Array.isArray(transports)) return null
  const valid = transports.filter((t): t is string => typeof t === "string" && /^[a-z-]{1,32}$/.test(t))
  return valid.length ? valid.join(",") : null
}

/** Stored transports back to a list, `undefined` when unknown. */
export function stringToTransports(value: string | null | undefined): string[] | undefined {
  return value ? value.split(",").filter(Boolean) : undefined
}
