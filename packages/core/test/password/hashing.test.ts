/**
 * Issue 20, part 1: `@portcullis/core/password`. Argon2id at OWASP's parameters as PHC
 * strings, checked against Node's own argon2 (a third, independent implementation) and
 * between our two backends; legacy bcrypt/scrypt hashes verify; hostile stored hashes and
 * passwords are refused without exhausting the server.
 */
import { argon2Sync, randomBytes, scryptSync } from "node:crypto"
import { describe, expect, it } from "vitest"
import { hashPassword, MAX_PASSWORD_BYTES, needsRehash, OWASP_ARGON2ID, verifyPassword } from "@portcullis/core/password"
import { UnsupportedPasswordHash } from "@portcullis/core/errors"

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64").replace(/=+$/, "")
const fromB64 = (text: string) => Buffer.from(text, "base64")

/** Node's argon2id of `password` with the salt and cost a PHC string names. */
function nodeArgon2id(password: string, phc: string): Buffer {
  const [, , , params, salt, hash] = phc.split("$") as string[]
  const p = Object.fromEntries(params!.split(",").map((kv) => kv.split("=")).map(([k, v]) => [k, Number(v)]))
  return argon2Sync("argon2id", { message: password, nonce: fromB64(salt!), parallelism: p.p!, tagLength: fromB64(hash!).length, memory: p.m!, passes: p.t! })
}

function nodePhc(password: string, memory = 256, passes = 2, parallelism = 1): string {
  const nonce = randomBytes(16)
  const tag = argon2Sync("argon2id", { message: password, nonce, parallelism, tagLength: 32, memory, passes })
  return `$argon2id$v=19$m=${memory},t=${passes},p=${parallelism}$${b64(nonce)}$${b64(tag)}`
}

describe("hashPassword", () => {
  it("makes an argon2id PHC string at OWASP's parameters with a fresh 16-byte salt", async () => {
    const a = await hashPassword("correct horse battery staple")
    const b = await hashPassword("correct horse battery staple")
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/)
    expect(a).not.toBe(b)
    expect(OWASP_ARGON2ID).toEqual({ memoryCost: 19456, timeCost: 2, parallelism: 1 })
  })

  for (const implementation of ["native", "wasm"] as const) {
    it(`(${implementation}) computes what Node's own argon2id computes for the same salt and cost`, async () => {
      for (const password of ["pw", "pässwörd ✓ 🔑", "x".repeat(MAX_PASSWORD_BYTES)]) {
        const phc = await hashPassword(password, { implementation, memoryCost: 1024, timeCost: 2, parallelism: 2 })
        expect(fromB64(phc.split("$")[5]!)).toEqual(nodeArgon2id(password, phc))
      }
    })
  }

  it("refuses empty, non-string and over-long passwords, and nonsensical cost", async () => {
    await expect(hashPassword("")).rejects.toThrow(TypeError)
    await expect(hashPassword(42 as unknown as string)).rejects.toThrow(TypeError)
    await expect(hashPassword("é".repeat(MAX_PASSWORD_BYTES))).rejects.toThrow(/limited to 1024 bytes/)
    await expect(hashPassword("pw", { timeCost: 0 })).rejects.toThrow(TypeError)
    await expect(hashPassword("pw", { memoryCost: 1.5 })).rejects.toThrow(TypeError)
    await expect(hashPassword("pw", { memoryCost: 8, parallelism: 4 })).rejects.toThrow(/8 KiB per lane/)
  })
})

describe("verifyPassword with argon2", () => {
  it("accepts the right password and refuses others, across both implementations and Node's", async () => {
    const fromNative = await hashPassword("s3cret!", { implementation: "native", memoryCost: 512 })
    const fromWasm = await hashPassword("s3cret!", { implementation: "wasm", memoryCost: 512 })
    const fromNode = nodePhc("s3cret!")
    for (const stored of [fromNative, fromWasm, fromNode]) {
      for (const implementation of ["native", "wasm"] as const) {
        expect(await verifyPassword("s3cret!", stored, { implementation })).toBe(true)
        expect(await verifyPassword("s3cret?", stored, { implementation })).toBe(false)
        expect(await verifyPassword("S3cret!", stored, { implementation })).toBe(false)
        expect(await verifyPassword("", stored, { implementation })).toBe(false)
      }
    }
  })

  it("refuses a hash whose stored tag or salt was changed in any position", async () => {
    const stored = await hashPassword("tamper-me", { memoryCost: 256 })
    const parts = stored.split("$")
    for (const index of [4, 5]) {
      const field = parts[index]!
      for (let i = 0; i < field.length; i += 5) {
        const flipped = field.slice(0, i) + (field[i] === "A" ? "B" : "A") + field.slice(i + 1)
        const forged = [...parts.slice(0, index), flipped, ...parts.slice(index + 1)].join("$")
        expect(await verifyPassword("tamper-me", forged)).toBe(false)
      }
    }
  })

  it("answers 50 verifications at once, each for its own password", async () => {
    const users = await Promise.all(Array.from({ length: 10 }, async (_, i) => ({ password: `pw-${i}`, stored: await hashPassword(`pw-${i}`, { memoryCost: 256 }) })))
    const checks = Array.from({ length: 50 }, (_, i) => {
      const user = users[i % users.length]!
      const right = i % 2 === 0
      return verifyPassword(right ? user.password : `${user.password}x`, user.stored).then((ok) => ok === right)
    })
    expect(await Promise.all(checks)).toEqual(Array(50).fill(true))
  })
})

describe("verifyPassword for an unknown user", () => {
  it("is false for null and undefined, after doing the hashing a real check does", async () => {
    expect(await verifyPassword("whatever", undefined)).toBe(false)
    expect(await verifyPassword("whatever", null)).toBe(false)
  })

  it("is false for an over-long password instead of hashing megabytes", async () => {
    const stored = await hashPassword("short", { memoryCost: 256 })
    expect(await verifyPassword("a".repeat(10 * 1024 * 1024), stored)).toBe(false)
  })
})

describe("verifyPassword with hashes other libraries made", () => {
  it("verifies bcrypt ($2a$, $2b$, $2y$) — the OpenBSD test vector and a hash of our own", async () => {
    // From the OpenBSD bcrypt test vectors: "U*U" with cost 5.
    expect(await verifyPassword("U*U", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW")).toBe(true)
    expect(await verifyPassword("U*V", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW")).toBe(false)
    const { bcrypt } = await import("hash-wasm")
    const made = await bcrypt({ password: "legacy pw", salt: randomBytes(16), costFactor: 6 })
    for (const variant of ["2a", "2b", "2y"]) {
      const stored = made.replace(/^\$2[aby]\$/, `$${variant}$`)
      expect(await verifyPassword("legacy pw", stored)).toBe(true)
      expect(await verifyPassword("legacy px", stored)).toBe(false)
      expect(needsRehash(stored)).toBe(true)
    }
  })

  it("verifies better-auth's scrypt `salt:key` hashes, made here by Node's scrypt", async () => {
    const salt = randomBytes(16).toString("hex")
    const password = "Ünïcode pass"
    const key = scryptSync(password.normalize("NFKC"), salt, 64, { N: 16384, r: 16, p: 1, maxmem: 128 * 16384 * 16 * 2 })
    const stored = `${salt}:${key.toString("hex")}`
    expect(await verifyPassword(password, stored)).toBe(true)
    // NFKC: the composed and decomposed spellings are one password, as in better-auth.
    expect(await verifyPassword(password.normalize("NFD"), stored)).toBe(true)
    expect(await verifyPassword("unicode pass", stored)).toBe(false)
    expect(needsRehash(stored)).toBe(true)
  })

  it("verifies scrypt PHC strings ($scrypt$ln=…,r=…,p=…), made here by Node's scrypt", async () => {
    const salt = randomBytes(16)
    const key = scryptSync("phc pw", salt, 32, { N: 2 ** 12, r: 8, p: 1 })
    const stored = `$scrypt$ln=12,r=8,p=1$${b64(salt)}$${b64(key)}`
    expect(await verifyPassword("phc pw", stored)).toBe(true)
    expect(await verifyPassword("phc px", stored)).toBe(false)
  })
})

describe("hostile stored hashes", () => {
  it("refuses hashes in no supported format with UnsupportedPasswordHash, naming only their shape", async () => {
    for (const stored of ["plaintext-password", "$md5$abc$def", "$1$salt$hash", "", "$argon2id$v=19$m=abc$x$y", "$argon2id$v=19$m=64,t=1,p=1$$"]) {
      const error = await verifyPassword("plaintext-password", stored).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(UnsupportedPasswordHash)
      expect((error as UnsupportedPasswordHash).type).toBe("UnsupportedPasswordHash")
      if (stored.length > 4) expect((error as Error).message).not.toContain(stored)
    }
  })

  it("refuses planted costs that would exhaust memory or time, before doing any work", async () => {
    const salt = b64(randomBytes(16))
    const tag = b64(randomBytes(32))
    for (const stored of [
      `$argon2id$v=19$m=4294967295,t=2,p=1$${salt}$${tag}`,
      `$argon2id$v=19$m=19456,t=100000,p=1$${salt}$${tag}`,
      `$argon2id$v=19$m=19456,t=2,p=255$${salt}$${tag}`,
      `$scrypt$ln=30,r=8,p=1$${salt}$${tag}`,
      "$2b$31$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW",
    ]) {
      await expect(verifyPassword("pw", stored)).rejects.toBeInstanceOf(UnsupportedPasswordHash)
    }
  })

  it("treats a stored value that is not a string as a data error", async () => {
    await expect(verifyPassword("pw", 12 as unknown as string)).rejects.toBeInstanceOf(UnsupportedPasswordHash)
  })
})

describe("needsRehash", () => {
  it("is false for a hash made at the wanted cost, true for weaker cost or another algorithm", async () => {
    const current = await hashPassword("pw")
    expect(needsRehash(current)).toBe(false)
    expect(needsRehash(current, { memoryCost: 65536 })).toBe(true)
    expect(needsRehash(current, { timeCost: 3 })).toBe(true)
    expect(needsRehash(nodePhc("pw", 4096))).toBe(true)
    expect(needsRehash(nodePhc("pw", 19456).replace("$argon2id$", "$argon2i$"))).toBe(true)
    expect(needsRehash("not a hash")).toBe(true)
  })
})
