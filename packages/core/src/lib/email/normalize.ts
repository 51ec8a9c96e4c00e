/**
 * Canonical form and validation of the address typed into the email sign-in form.
 *
 * The address is used three times — to look the user up, to bind the token, and as the
 * mail recipient — so it must be one canonical string, and it must be exactly one
 * mailbox: a comma, a CR/LF or a display name would let a request add recipients or
 * headers to the sign-in email (checklist T49).
 * @module
 */

/** Why an address was refused; logged as a reason code, never echoed to the user. */
export type AddressProblem =
  | "missing"
  | "too-long"
  | "forbidden-character"
  | "not-one-address"
  | "bad-local-part"
  | "bad-domain"

/** An address the sign-in form must not use; `reason` is safe to log. */
export class AddressRefused extends Error {
  constructor(readonly reason: AddressProblem) {
    super(`The email address was refused (${reason})`)
    this.name = "AddressRefused"
  }
}

/** RFC 5321 §4.5.3.1: 64 octets of local part, 255 of domain, so 320 with the `@`. */
const MAX_ADDRESS = 320
const MAX_LOCAL = 64
const MAX_DOMAIN = 255
const MAX_LABEL = 63

// RFC 5322 `atext` (the dot-atom alphabet), plus letters, marks and digits of any script
// (RFC 6531). Everything else — spaces, quotes, `<>()[],;:\`, controls, Unicode format
// characters such as zero-width joiners and bidi overrides — is refused: none of it
// appears in an address a person types, and each is a known way to smuggle a second
// recipient, a header, or a look-alike identity.
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~\p{L}\p{M}\p{N}-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~\p{L}\p{M}\p{N}-]+)*$/u
const LABEL = /^[\p{L}\p{M}\p{N}](?:[\p{L}\p{M}\p{N}-]*[\p{L}\p{M}\p{N}])?$/u

// Characters that end a mail header or separate recipients in any of the forms senders
// accept. Checked on every identifier, a custom normaliser's output included.
const UNSAFE = /[\u0000-\u0020\u007f-\u009f\u2028\u2029\u00a0\ufeff"(),:;<>[\\\]]/u

/**
 * The default `normalizeIdentifier`: trims, applies Unicode NFC, lower-cases the whole
 * address, and refuses anything that is not exactly one plain `local@domain` mailbox.
 *
 * Lower-casing the local part is a choice: RFC 5321 lets it be case-sensitive, but no
 * mainstream provider treats it so, and keeping case would give `Ada@x.com` and
 * `ada@x.com` two accounts. It is also what Auth.js stores, so migrated users keep
 * matching. Plus-tags (`ada+news@x.com`) are kept: they are distinct identities.
 *
 * Dotless domains (`ada@localhost`), IP literals, quoted local parts and a trailing
 * dot are refused.
 *
 * @throws {AddressRefused} with a reason code.
 */
export function normalizeEmail(input: unknown): string {
  if (typeof input !== "string" || !input.trim()) throw new AddressRefused("missing")
  // Bound the work before normalising: a form field never needs more than this.
  if (input.length > MAX_ADDRESS * 4) throw new AddressRefused("too-long")
  const address = input.trim().normalize("NFC").toLowerCase().normalize("NFC")
  checkAddress(address)
  const at = address.indexOf("@")
  const local = address.slice(0, at)
  const domain = address.slice(at + 1)
  if (local.length > MAX_LOCAL || !LOCAL_PART.test(local)) throw new AddressRefused("bad-local-part")
  const labels = domain.split(".")
  // Two labels at least, and a top-level label that is not all digits (so no IPv4 literal).
  if (
    domain.length > MAX_DOMAIN ||
    labels.length < 2 ||
    /^\d+$/.test(labels.at(-1)!) ||
    labels.some((label) => label.length > MAX_LABEL || !LABEL.test(label))
  ) {
    throw new AddressRefused("bad-domain")
  }
  return address
}

/**
 * The safety floor every identifier must pass, whoever normalised it: at most 320
 * characters, exactly one `@` with text on both sides, and no character that could end
 * a header or add a recipient. A custom `normalizeIdentifier` may choose another
 * canonical form but cannot opt out of this.
 *
 * @throws {AddressRefused} with a reason code.
 */
export function checkAddress(address: unknown): asserts address is string {
  if (typeof address !== "string" || !address) throw new AddressRefused("missing")
  if (address.length > MAX_ADDRESS) throw new AddressRefused("too-long")
  if (UNSAFE.test(address)) throw new AddressRefused("forbidden-character")
  const at = address.indexOf("@")
  if (at <= 0 || at !== address.lastIndexOf("@") || at === address.length - 1) throw new AddressRefused("not-one-address")
}
