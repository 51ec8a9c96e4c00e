/**
 * Verification of hashes other libraries made, so apps can move users to argon2id at their
 * next sign-in instead of forcing resets: bcrypt (`$2a$`, `$2b$`, `$2y$`), scrypt as a PHC
 * string (`$scrypt$ln=15,r=8,p=1$salt$hash`, passlib's form) and scrypt as `salt:key` in hex
 * (better-auth's form: N=16384, r=16, p=1, 64-byte key, the salt's hex text as salt).
 * bcrypt is accepted up to cost 14.
 * @module
 */
import { fromB64, parsePhc, sameBytes } from "./phc.js"

/** Legacy formats this module verifies. */
export type LegacyFormat = "bcrypt" | "scrypt-phc" | "scrypt-hex"

const BCRYPT = /^\$2[aby]\$(\d\d)\$[./A-Za-z0-9]{53}$/
const SCRYPT_HEX = /^([0-9a-f]{16,128}):([0-9a-f]{64,256})$/i

/** Which legacy format a stored hash is in, if any (and within cost bounds). */
export function legacyFormatOf(stored: string): LegacyFormat | undefined {
  const bcrypt = BCRYPT.exec(stored)
  // Cost 14 is already about a second of WebAssembly on the calling thread; 15 and up would
  // let one planted row stall the server.
  if (bcrypt) return Number(bcrypt[1]) >= 4 && Number(bcrypt[1]) <= 14 ? "bcrypt" : undefined
  if (SCRYPT_HEX.test(stored)) return "scrypt-hex"
  const phc = parsePhc(stored)
  if (phc?.id === "scrypt" && scryptParams(phc.params)) return "scrypt-phc"
  return undefined
}

/** scrypt's cost from PHC parameters, refused beyond 256 MiB of memory times lanes. */
function scryptParams(params: Record<string, number>): { N: number; r: number; p: number } | undefined {
  const { ln, r, p } = params
  if (!ln || !r || !p || ln > 20 || r > 32 || p > 16) return undefined
  const N = 2 ** ln
  // Lanes run one after another here: memory × lanes is the work, bounded like the memory.
  return 128 * N * r * p <= 256 * 1024 * 1024 ? { N, r, p } : undefined
}

/** Verifies `password` against a stored hash in one of the legacy formats. */
export async function verifyLegacy(format: LegacyFormat, stored: string, password: string): Promise<boolean> {
  const { bcryptVerify, scrypt } = await import("hash-wasm")
  switch (format) {
    case "bcrypt":
      // bcrypt reads at most 72 bytes of the password: that is what made the hash.
      return bcryptVerify({ password, hash: stored })
    case "scrypt-hex": {
      const [, salt, key] = SCRYPT_HEX.exec(stored)!
      const expected = hexBytes(key!)
      const got = await scrypt({ password: password.normalize("NFKC"), salt: salt!, costFactor: 16384, blockSize: 16, parallelism: 1, hashLength: expected.length, outputType: "binary" })
      return sameBytes(got, expected)
    }
    case "scrypt-phc": {
      const phc = parsePhc(stored)!
      const { N, r, p } = scryptParams(phc.params)!
      const salt = fromB64(phc.salt.replace(/\./g, "+"))
      const expected = fromB64(phc.hash.replace(/\./g, "+"))
      if (!salt || !expected || expected.length < 16) return false
      const got = await scrypt({ password, salt, costFactor: N, blockSize: r, parallelism: p, hashLength: expected.length, outputType: "binary" })
      return sameBytes(got, expected)
    }
  }
}

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g)!, (h) => parseInt(h, 16))
}
