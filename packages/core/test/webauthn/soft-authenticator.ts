/**
 * A software WebAuthn authenticator for tests: ES256 keys from node:crypto, attestation
 * `none`, and just enough CBOR to encode the fixed structures (maps with integer or text
 * keys, integers, byte and text strings). It produces the JSON the browser library posts,
 * and every part of it can be bent to test a refusal.
 * @module
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto"

type Cbor = number | string | Uint8Array | Map<number | string, Cbor>

function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length])
  if (length < 0x100) return Buffer.from([(major << 5) | 24, length])
  if (length < 0x10000) return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff])
  const b = Buffer.alloc(5)
  b[0] = (major << 5) | 26
  b.writeUInt32BE(length, 1)
  return b
}

/** Encodes the few CBOR shapes attestation objects and COSE keys use. */
export function cbor(value: Cbor): Buffer {
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value)
  if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8")
    return Buffer.concat([head(3, bytes.length), bytes])
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value])
  const parts = [head(5, value.size)]
  for (const [k, v] of value) parts.push(cbor(k), cbor(v))
  return Buffer.concat(parts)
}

const b64u = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64url")
const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest()

/** Authenticator data flags. */
export const FLAGS = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40 }

/** Bends applied to one generated response. */
export interface Tweaks {
  /** Fields merged into clientDataJSON (e.g. `{ origin: "https://evil.example" }`). */
  clientData?: Record<string, unknown>
  /** Authenticator data flags; default UP|UV (plus AT at registration). */
  flags?: number
  /** RP id whose hash goes into authenticator data; default the credential's. */
  rpId?: string
  /** Counter to report; default the next one. */
  counter?: number
  /** Change clientDataJSON after signing. */
  tamperClientData?: (json: string) => string
  /** Sign with another key. */
  signWith?: KeyObject
}

/** One credential held by the software authenticator. */
export class SoftCredential {
  readonly id: Buffer
  readonly privateKey: KeyObject
  readonly publicKey: KeyObject
  /** Counter last reported; 0 means the authenticator does not count (like synced passkeys). */
  counter: number
  userHandle: string | undefined

  constructor(
    readonly origin: string,
    readonly rpId: string,
    options: { counting?: boolean; idLength?: number } = {},
  ) {
    this.id = randomBytes(options.idLength ?? 32)
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
    this.privateKey = privateKey
    this.publicKey = publicKey
    this.counter = options.counting ? 1 : 0
  }

  /** The COSE form of the public key (kty EC2, alg ES256, crv P-256, x, y). */
  coseKey(): Buffer {
    const jwk = this.publicKey.export({ format: "jwk" })
    return cbor(new Map<number, Cbor>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x!, "base64url")], [-3, Buffer.from(jwk.y!, "base64url")]]))
  }

  #clientData(type: string, challenge: string, tweaks: Tweaks): string {
    const json = JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false, ...tweaks.clientData })
    return tweaks.tamperClientData ? tweaks.tamperClientData(json) : json
  }

  #authData(flags: number, counter: number, rpId: string, attested?: Buffer): Buffer {
    const c = Buffer.alloc(4)
    c.writeUInt32BE(counter)
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), c, ...(attested ? [attested] : [])])
  }

  /** A registration response for creation options from the server. */
  register(options: { challenge: string; user: { id: string } }, tweaks: Tweaks = {}) {
    this.userHandle = options.user.id
    const flags = tweaks.flags ?? FLAGS.UP | FLAGS.UV | FLAGS.AT
    const idLength = Buffer.alloc(2)
    idLength.writeUInt16BE(this.id.length)
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.id, this.coseKey()])
    const authData = this.#authData(flags, this.counter, tweaks.rpId ?? this.rpId, attested)
    const attestationObject = cbor(new Map<string, Cbor>([["fmt", "none"], ["attStmt", new Map()], ["authData", authData]]))
    const clientDataJSON = this.#clientData("webauthn.create", options.challenge, tweaks)
    return {
      id: b64u(this.id),
      rawId: b64u(this.id),
      type: "public-key",
      response: { clientDataJSON: b64u(clientDataJSON), attestationObject: b64u(attestationObject), transports: ["internal"] },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    }
  }

  /** An authentication response for request options from the server. */
  authenticate(options: { challenge: string }, tweaks: Tweaks = {}) {
    if (this.counter > 0) this.counter += 1
    const counter = tweaks.counter ?? this.counter
    const authData = this.#authData(tweaks.flags ?? FLAGS.UP | FLAGS.UV, counter, tweaks.rpId ?? this.rpId)
    const signedClientData = JSON.stringify({ type: "webauthn.get", challenge: options.challenge, origin: this.origin, crossOrigin: false, ...tweaks.clientData })
    const signature = sign("sha256", Buffer.concat([authData, sha256(signedClientData)]), tweaks.signWith ?? this.privateKey)
    const sent = tweaks.tamperClientData ? tweaks.tamperClientData(signedClientData) : signedClientData
    return {
      id: b64u(this.id),
      rawId: b64u(this.id),
      type: "public-key",
      response: { clientDataJSON: b64u(sent), authenticatorData: b64u(authData), signature: b64u(signature), ...(this.userHandle && { userHandle: this.userHandle }) },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    }
  }
}
