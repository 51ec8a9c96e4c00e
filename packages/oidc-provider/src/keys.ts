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
 *
 * Secret rotation: a sealed key is opened with the key of any configured secret (newest
 * first). One only an older secret opens is replaced by a fresh key sealed under the newest
 * (the older secret is about to be removed); it stays published, so its tokens verify. When no
 * secret opens an algorithm's keys (the old secret removed too soon), that is logged and a
 * fresh key is made: the provider keeps signing rather than failing every request.
 * @module
 */
import { CompactEncrypt, compactDecrypt, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from "jose"
import { nodePrivateKey } from "./node-crypto.js"
import type { SigningAlg } from "./options.js"
import { randomToken } from "./random.js"
import type { OidcProviderStore, StoredSigningKey } from "./store/types.js"

/** No configured secret opens an algorithm's stored keys (the secret they were sealed under was removed). */
export class UnreadableSigningKeys extends Error {
  override name = "UnreadableSigningKeys"
  readonly code = "unreadable-signing-keys"
  constructor(
    readonly alg: SigningAlg,
    readonly kids: string[],
  ) {
    super(
      `oidcProvider: none of the configured secrets opens the stored ${alg} signing keys (${kids.join(", ")}); a new key is generated. Keep the old secret configured (below the new one) until the provider has rotated its keys.`,
    )
  }
}

/** A key ready to sign with. */
export interface SigningKey {
  kid: string
  alg: SigningAlg
  privateKey: CryptoKey
  /** The same key as `node:crypto` takes it, where the runtime offers it (node-crypto.ts). */
  nodeKey?: unknown
  /** The base64url protected headers signed with this key, by `alg` and `typ` (the same on every token; `tokens.ts`). */
  encodedHeaders?: Map<string, string>
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
  /** The keys sealing private parts, one per configured secret, newest first (`host.deriveKeys`). */
  sealKeys: () => Promise<Uint8Array[]>
  /** Told when no secret opens an algorithm's stored keys (logged by the provider). */
  onUnreadable?: (error: UnreadableSigningKeys) => void
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

  /**
   * `true` when `kid` is a key of the ring as loaded and still fresh — what `publicKey`
   * would find without a store read; `undefined` when only `publicKey` can tell (nothing
   * loaded, the load is stale, or the kid unknown). Synchronous, for the check of a token
   * verified before (userinfo's common case), which needs no key, only that it still exists.
   */
  knows(kid: string): true | undefined {
    const loaded = this.#loaded
    if (!loaded || Date.now() - loaded.at >= this.options.cacheTtl * 1000) return undefined
    return loaded.publicKeys.has(kid) ? true : undefined
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
    const signing = new Map<SigningAlg, SigningKey>()
    const publicKeys: Loaded["publicKeys"] = new Map()
    let generated = false
    for (const alg of algs) {
      const newest = newestOf(stored, alg)
      let signer = newest && now - newest.createdAt.getTime() < rotation * 1000 ? await this.#openable(stored, alg) : undefined
      // Sealed under an older secret only (or nothing opens): a fresh key under the newest.
      if (!signer || signer.secretIndex > 0) {
        const added = await this.#generate(alg)
        await store.addSigningKey(added.stored)
        stored = [...stored, added.stored]
        signer = { key: added.stored, privateKey: added.privateKey, nodeKey: added.nodeKey, secretIndex: 0 }
        generated = true
      }
      const chosen = signer.key
      for (const key of stored.filter((k) => k.alg === alg && k !== chosen && !k.retiredAt && k.createdAt.getTime() <= chosen.createdAt.getTime())) {
        // Published until every token it may have signed expired (another instance may sign
        // with it until its cache ends).
        const expiresAt = new Date(now + (tokenLifetime + cacheTtl + 60) * 1000)
        await store.updateSigningKey(key.kid, { retiredAt: new Date(now), expiresAt })
        key.retiredAt = new Date(now)
        key.expiresAt = expiresAt
      }
      signing.set(alg, { kid: chosen.kid, alg, privateKey: signer.privateKey, nodeKey: signer.nodeKey })
    }
    for (const key of stored) if (algs.includes(key.alg as SigningAlg)) publicKeys.set(key.kid, { alg: key.alg as SigningAlg, jwk: publicPart(key.publicJwk as JWK, key.kid, key.alg as SigningAlg) })
    // Having just added a key, read again within a second rather than after the whole cache
    // time: another instance may have added one at the same moment, and this instance's JWKS
    // must publish it (and sign with the newer of the two) soon, not `keyCacheTtl` later.
    return { at: generated ? Date.now() - Math.max(0, cacheTtl * 1000 - 1000) : Date.now(), signing, publicKeys }
  }

  /**
   * The newest key of `alg` some configured secret opens, and which secret did (0: the
   * newest). A newer key none opens is passed over — an instance not yet given a new secret
   * (a rolling deploy) signs with the key it can open instead of adding one; when none
   * opens at all, that is reported.
   */
  async #openable(stored: StoredSigningKey[], alg: SigningAlg): Promise<{ key: StoredSigningKey; privateKey: CryptoKey; nodeKey: unknown; secretIndex: number } | undefined> {
    const keys = await this.options.sealKeys()
    const candidates = stored.filter((k) => k.alg === alg).sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (b.kid > a.kid ? 1 : -1))
    for (const key of candidates) {
      const opened = await this.#unseal(key, keys)
      if (opened) return { key, ...opened }
    }
    this.options.onUnreadable?.(new UnreadableSigningKeys(alg, candidates.map((k) => k.kid)))
    return undefined
  }

  async #generate(alg: SigningAlg): Promise<{ stored: StoredSigningKey; privateKey: CryptoKey; nodeKey: unknown }> {
    const kid = randomToken(12)
    const { privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === "EdDSA" && { crv: "Ed25519" }) })
    const jwk = await exportJWK(privateKey)
    const sealed = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify({ ...jwk, kid, alg })))
      .setProtectedHeader({ alg: "dir", enc: "A256GCM", kid })
      .encrypt((await this.options.sealKeys())[0]!)
    return { stored: { kid, alg, publicJwk: publicPart(jwk, kid, alg) as Record<string, unknown>, sealedPrivateJwk: sealed, createdAt: new Date() }, privateKey, nodeKey: nodePrivateKey({ ...jwk, kid, alg }) }
  }

  /** The private key of `key`, opened by the first of `keys` that can, or `undefined`. */
  async #unseal(key: StoredSigningKey, keys: Uint8Array[]): Promise<{ privateKey: CryptoKey; nodeKey: unknown; secretIndex: number } | undefined> {
    for (const [secretIndex, sealKey] of keys.entries()) {
      let opened
      try {
        opened = await compactDecrypt(key.sealedPrivateJwk, sealKey)
      } catch {
        continue
      }
      // The header names the key it was sealed for: a record whose sealed part was swapped fails.
      if (opened.protectedHeader.kid !== key.kid) throw new Error(`The sealed private key of ${key.kid} belongs to another key`)
      const jwk = JSON.parse(new TextDecoder().decode(opened.plaintext)) as JWK
      return { privateKey: (await importJWK(jwk, key.alg)) as CryptoKey, nodeKey: nodePrivateKey(jwk), secretIndex }
    }
    return undefined
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
