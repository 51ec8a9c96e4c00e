/**
 * A connection's own key pair: RSA-2048 and a self-signed certificate that carries it in the
 * SP metadata (the IdP encrypts assertions to it and checks signed requests with it). SAML
 * uses the certificate only as a key container, so nothing but node:crypto is needed: the
 * certificate's few DER fields are written here and signed with the key itself.
 * @module
 */
import { X509Certificate, generateKeyPairSync, randomBytes, sign } from "node:crypto"

/** DER: a tag, its length, its content. */
function der(tag: number, content: Buffer): Buffer {
  const n = content.length
  const length = n < 0x80 ? Buffer.from([n]) : (() => {
    const bytes: number[] = []
    for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff)
    return Buffer.from([0x80 | bytes.length, ...bytes])
  })()
  return Buffer.concat([Buffer.from([tag]), length, content])
}
const sequence = (...items: Buffer[]) => der(0x30, Buffer.concat(items))
const set = (...items: Buffer[]) => der(0x31, Buffer.concat(items))
const nullValue = () => der(0x05, Buffer.alloc(0))
const utf8 = (text: string) => der(0x0c, Buffer.from(text, "utf8"))
/** A positive INTEGER from unsigned big-endian bytes (a leading 0 keeps the sign bit clear). */
const integer = (bytes: Buffer) => der(0x02, bytes[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes)
function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split(".").map(Number)
  const out = [a! * 40 + b!]
  for (const arc of rest) {
    const base128: number[] = []
    for (let v = arc; ; v = Math.floor(v / 128)) {
      base128.unshift((v % 128) | (base128.length ? 0x80 : 0))
      if (v < 128) break
    }
    out.push(...base128)
  }
  return der(0x06, Buffer.from(out))
}
/** RFC 5280 §4.1.2.5: UTCTime through 2049, GeneralizedTime after. */
function time(at: Date): Buffer {
  const iso = at.toISOString().replace(/[-:T]/g, "").slice(0, 14) + "Z"
  return at.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(iso.slice(2))) : der(0x18, Buffer.from(iso))
}

const SHA256_WITH_RSA = "1.2.840.113549.1.1.11"
const COMMON_NAME = "2.5.4.3"

/** A connection's key pair, PEM: the shape of `Connection.spKey`. */
export interface SpKey {
  privateKey: string
  certificate: string
}

/**
 * Generates a fresh RSA-2048 key and a self-signed X.509 certificate for it (SHA-256,
 * valid `years` from now, subject `CN=<commonName>`). Store it as the connection's `spKey`.
 *
 * @example
 * ```ts
 * const spKey = generateSpKey({ commonName: "portcullis-sp acme" })
 * await store.updateConnection({ ...connection, spKey })
 * ```
 */
export function generateSpKey(options: { commonName?: string; years?: number; now?: () => Date } = {}): SpKey {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 })
  const from = options.now?.() ?? new Date()
  const until = new Date(from)
  until.setUTCFullYear(until.getUTCFullYear() + (options.years ?? 10))
  const name = sequence(set(sequence(oid(COMMON_NAME), utf8(options.commonName ?? "Portcullis SAML service provider"))))
  const algorithm = sequence(oid(SHA256_WITH_RSA), nullValue())
  const serial = randomBytes(16)
  serial[0] = serial[0]! & 0x7f || 1 // positive and without a leading zero byte
  const tbs = sequence(
    der(0xa0, integer(Buffer.from([2]))), // v3
    integer(serial),
    algorithm,
    name,
    sequence(time(from), time(until)),
    name,
    publicKey.export({ type: "spki", format: "der" }),
  )
  const signature = sign("sha256", tbs, privateKey)
  const certificate = sequence(tbs, algorithm, der(0x03, Buffer.concat([Buffer.from([0]), signature])))
  const pem = `-----BEGIN CERTIFICATE-----\n${certificate.toString("base64").replace(/(.{64})/g, "$1\n").replace(/\n$/, "")}\n-----END CERTIFICATE-----\n`
  // Parsing it back is the proof the encoding is right; a wrong byte fails here, not at an IdP.
  if (!new X509Certificate(pem).verify(publicKey)) throw new Error("generateSpKey: the certificate does not verify")
  return { privateKey: privateKey.export({ type: "pkcs8", format: "pem" }) as string, certificate: pem }
}
