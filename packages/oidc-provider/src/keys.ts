/**
 * The provider's signing keys: configured private JWKs, or keys generated per algorithm and
 * kept in the store with their private part sealed (JWE, `dir` + A256GCM, under a key derived
 * from the configuration's secret). Instances read the store's keys and keep them for
 * `keyCacheTtl` seconds.
 *
 * Rotation: the newest key of an algorithm signs; once it is `keyRotation` old, the instance
 * that notices adds a new one. Older keys are retired with an expiry past the longest token
 * they may have signed (plus the cache time, during which another instance may still sign with
 * one), and stay in the JWKS until then. Two instances rotating at once both add a key: both
 * are published, the newer one wins on every instance at its next read, and tokens signed by
 * the other still verify.
 * @module
 */
import { CompactEncrypt, compactDecrypt, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from "jose"
import { nodePrivateKey } from "./node-crypto.js"
import type { SigningAlg } from "./options.js"
import { randomToken } from "./random.js"
import type { OidcProviderStore, StoredSigningKey } from "./store/types.js"

/** A key ready to sign with. */
export interface SigningKey {
  kid: string
  alg: SigningAlg
  privateKey: CryptoKey
  /** The same key as `node:crypto` takes it, where the runtime offers it (node-crypto.ts). */
  nodeKey?: unknown
}

interface Loaded {
  at: number
  /** Signing key per algorithm. */
  signing: Map<SigningAlg, SigningKey>
  /** Public keys by kid: what the JWKS publishes and what access tokens are verified with. */
  publicKeys: Map<string, { alg: SigningAlg; jwk: JWK; key?: CryptoKey; nodeKey?: unknown }>
}

export interface KeyRingOptions {
  store: OidcProviderStore
  algs: SigningAlg[]
  configured: Record<string, unknown>[] | undefined
  rotation: number
  cacheTtl: number
  /** The longest lifetime of a signed token, seconds. */
  tokenLifetime: number
  sealKey: () => Promise<Uint8Array>
}

/** The keys of one configuration. */
export class KeyRing {
  #loaded: Loaded | undefined
  #loading: Promise<Loaded> | undefined
  #forcedAt = 0
  constructor(readonly options: KeyRingOptions) {}

  /** The key that signs with `alg` now. */
  async signingKey(alg: SigningAlg): Promise<SigningKey> {
    const found = (await this.#current()).signing.get(alg)
    if (!found) throw new Error(`No signing key for ${alg}`)
    return found
  }

  /** The public JWKS. */
  async jwks(): Promise<{ keys: JWK[] }> {
    return { keys: [...(await this.#current()).publicKeys.values()].map((k) => k.jwk) }
  }

  /** The public key `kid` (for verifying our own tokens); an unknown kid reads the store once more. */
  async publicKey(kid: string): Promise<{ alg: SigningAlg; key: CryptoKey; jwk: JWK; nodeKey?: unknown } | null> {
    let loaded = await this.#current()
    let found = loaded.publicKeys.get(kid)
    // A kid we do not know may be a key another instance just added: read the store again,
    // at most once a second (made-up kids cannot turn every request into a store read).
    if (!found && Date.now() - this.#forcedAt > 1000) {
      this.#forcedAt = Date.now()
      loaded = await this.#current(true)
      found = loaded.publicKeys.get(kid)
    }
    if (!found) return null
    found.key ??= (await importJWK(found.jwk, found.alg)) as CryptoKey
    // The record itself, so the node:crypto form of the key is converted once per load.
    return found as { alg: SigningAlg; key: CryptoKey; jwk: JWK; nodeKey?: unknown }
  }

  /** Drops the cached keys (tests, after a rotation elsewhere). */
  forget(): void {
    this.#loaded = undefined
  }

  async #current(force = false): Promise<Loaded> {
    const fresh = this.#loaded && !force && Date.now() - this.#loaded.at < this.options.cacheTtl * 1000
    if (fresh) return this.#loaded!
    this.#loading ??= this.#load().finally(() => (this.#loading = undefined))
    return (this.#loaded = await this.#loading)
  }

  async #load(): Promise<Loaded> {
    return this.options.configured ? this.#fromConfig(this.options.configured) : this.#fromStore()
  }

  async #fromConfig(jwks: Record<string, unknown>[]): Promise<Loaded> {
    const signing = new Map<SigningAlg, SigningKey>()
    const publicKeys: Loaded["publicKeys"] = new Map()
    for (const jwk of jwks) {
      const alg = jwk.alg as SigningAlg
      const kid = jwk.kid as string
      // The first key of an algorithm signs; the others are published (a retiring key).
      if (!signing.has(alg)) signing.set(alg, { kid, alg, privateKey: (await importJWK(jwk as JWK, alg)) as CryptoKey, nodeKey: nodePrivateKey(jwk as JWK) })
      publicKeys.set(kid, { alg, jwk: publicPart(jwk as JWK, kid, alg) })
    }
    return { at: Date.now(), signing, publicKeys }
  }

  async #fromStore(): Promise<Loaded> {
    const { store, algs, rotation, tokenLifetime, cacheTtl } = this.options
    const now = Date.now()
    let stored = (await store.listSigningKeys()).filter((k) => !k.expiresAt || k.expiresAt.getTime() > now)
    for (const alg of algs) {
      const newest = newestOf(stored, alg)
      if (!newest || now - newest.createdAt.getTime() >= rotation * 1000) {
        const added = await this.#generate(alg)
        await store.addSigningKey(added)
        stored = [...stored, added]
      }
    }
    const signing = new Map<SigningAlg, SigningKey>()
    const publicKeys: Loaded["publicKeys"] = new Map()
    for (const alg of algs) {
      const newest = newestOf(stored, alg)!
      for (const key of stored.filter((k) => k.alg === alg && k !== newest && !k.retiredAt)) {
        // Published until every token it may have signed expired (another instance may sign
        // with it until its cache ends).
        const expiresAt = new Date(now + (tokenLifetime + cacheTtl + 60) * 1000)
        await store.updateSigningKey(key.kid, { retiredAt: new Date(now), expiresAt })
        key.retiredAt = new Date(now)
        key.expiresAt = expiresAt
      }
      signing.set(alg, { kid: newest.kid, alg, ...(await this.#unseal(newest)) })
    }
    for (const key of stored) if (algs.includes(key.alg as SigningAlg)) publicKeys.set(key.kid, { alg: key.alg as SigningAlg, jwk: publicPart(key.publicJwk as JWK, key.kid, key.alg as SigningAlg) })
    return { at: Date.now(), signing, publicKeys }
  }

  async #generate(alg: SigningAlg): Promise<StoredSigningKey> {
    const kid = randomToken(12)
    const { privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === "EdDSA" && { crv: "Ed25519" }) })
    const jwk = await exportJWK(privateKey)
    const sealed = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify({ ...jwk, kid, alg })))
      .setProtectedHeader({ alg: "dir", enc: "A256GCM", kid })
      .encrypt(await this.options.sealKey())
    return { kid, alg, publicJwk: publicPart(jwk, kid, alg) as Record<string, unknown>, sealedPrivateJwk: sealed, createdAt: new Date() }
  }

  async #unseal(key: StoredSigningKey): Promise<{ privateKey: CryptoKey; nodeKey: unknown }> {
    const { plaintext, protectedHeader } = await compactDecrypt(key.sealedPrivateJwk, await this.options.sealKey())
    // The header names the key it was sealed for: a record whose sealed part was swapped fails.
    if (protectedHeader.kid !== key.kid) throw new Error(`The sealed private key of ${key.kid} belongs to another key`)
    const jwk = JSON.parse(new TextDecoder().decode(plaintext)) as JWK
    return { privateKey: (await importJWK(jwk, key.alg)) as CryptoKey, nodeKey: nodePrivateKey(jwk) }
  }
}

function newestOf(keys: StoredSigningKey[], alg: string): StoredSigningKey | undefined {
  let best: StoredSigningKey | undefined
  for (const k of keys) {
    if (k.alg !== alg) continue
    if (!best || k.createdAt.getTime() > best.createdAt.getTime() || (k.createdAt.getTime() === best.createdAt.getTime() && k.kid > best.kid)) best = k
  }
  return best
}

const PRIVATE_MEMBERS = new Set(["d", "p", "q", "dp", "dq", "qi", "oth", "k"])

/** The public members of a JWK, with `kid`, `alg` and `use: sig`. */
function publicPart(jwk: JWK, kid: string, alg: SigningAlg): JWK {
  const out: JWK = {}
  for (const [name, value] of Object.entries(jwk)) if (!PRIVATE_MEMBERS.has(name) && name !== "key_ops" && name !== "ext") (out as Record<string, unknown>)[name] = value
  return { ...out, kid, alg, use: "sig" }
}
