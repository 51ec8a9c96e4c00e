/**
 * Attacks on `@portcullis/core/password` with planted hashes (a row written through an
 * import, a compromised admin tool, a bug elsewhere): "a planted hash must not exhaust the
 * server". What is refused is tested by the feature (`test/password/hashing.test.ts`); here
 * is what the bounds still admit. Nothing below hashes anything: each case only asks
 * whether the stored value would be run.
 *
 * FIXED here: a planted hash whose PHC parameters backtracked (ReDoS, below).
 *
 * NOT FIXED (a policy for the lead): the worst hashes inside the bounds cost, per sign-in
 * attempt, about
 * - argon2 `m=1048576,t=32,p=16`: 1 GiB of memory and 32 passes over it (the native
 *   binding off the event loop, the WebAssembly fallback on it); five attempts in flight on
 *   one planted account — what the lockout lets through — hold 5 GiB;
 * - scrypt `ln=20,r=2,p=16`: 256 MiB, but 16 sequential lanes of it, in hash-wasm on the
 *   event loop (the memory bound does not count `p`): tens of seconds with the whole
 *   process frozen;
 * - bcrypt cost 16: 2^16 key setups in WebAssembly on the event loop (~seconds).
 * Suggested bounds: argon2 m ≤ 256 MiB and t ≤ 10; scrypt 128·N·r·p ≤ 256 MiB; bcrypt ≤ 14
 * (or 15); and legacy verification off the event loop where `node:crypto.scrypt` exists.
 */
import { describe, expect, it } from "vitest"
import { argon2ParamsOf } from "../../../src/lib/password/argon2.js"
import { legacyFormatOf } from "../../../src/lib/password/legacy.js"
import { needsRehash, verifyPassword } from "@portcullis/core/password"
import { UnsupportedPasswordHash } from "@portcullis/core/errors"

const salt = "c2FsdHNhbHRzYWx0c2FsdA"
const tag = "dGFndGFndGFndGFndGFndGFndGFndGFndGFndGFndGE"

describe("planted hashes within the bounds", () => {
  it("argon2 asking for 1 GiB and 32 passes (16 lanes) is refused before any work", () => {
    expect(argon2ParamsOf(`$argon2id$v=19$m=1048576,t=32,p=16$${salt}$${tag}`)).toBeUndefined()
  })

  it("scrypt whose lanes multiply 256 MiB sixteen times is refused before any work", () => {
    expect(legacyFormatOf(`$scrypt$ln=20,r=2,p=16$${salt}$${tag}`)).toBeUndefined()
  })

  it("bcrypt at cost 16 (seconds of WebAssembly on the event loop) is refused", () => {
    expect(legacyFormatOf("$2b$16$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW")).toBeUndefined()
  })
})

describe("a planted hash whose parameters backtrack", () => {
  // `$argon2id$v=19$a=123456789=123456789=…`: the PHC pattern `(k=v,?)+` let each run of
  // digits split between a value and the next key in many ways. Proven before the fix with
  // a script (no timed test here): 108 characters took 7 s of the event loop in parsePhc —
  // verifyPassword and needsRehash both call it — and every 10 more characters multiplied
  // that by about eight. Fixed: comma-separated parameters, and a length bound first.
  const planted = (groups: number) => `$argon2id$v=19$a=${"123456789=".repeat(groups)}1$c2FsdA$!!`

  it("is refused at once by verifyPassword (UnsupportedPasswordHash) and needsRehash (true)", async () => {
    for (const groups of [8, 40, 400]) {
      await expect(verifyPassword("pw", planted(groups))).rejects.toBeInstanceOf(UnsupportedPasswordHash)
      expect(needsRehash(planted(groups))).toBe(true)
      expect(argon2ParamsOf(planted(groups))).toBeUndefined()
      expect(legacyFormatOf(planted(groups).replace("argon2id", "scrypt"))).toBeUndefined()
    }
  })

  it("hashes of every library still parse (commas between parameters, none trailing)", () => {
    expect(argon2ParamsOf(`$argon2id$v=19$m=19456,t=2,p=1$${salt}$${tag}`)).toMatchObject({ memoryCost: 19456, timeCost: 2, parallelism: 1 })
    expect(argon2ParamsOf(`$argon2i$m=4096,t=3,p=1$${salt}$${tag}`)).toMatchObject({ variant: "argon2i", version: 16 })
    expect(legacyFormatOf(`$scrypt$ln=16,r=8,p=1$${salt}$${tag}`)).toBe("scrypt-phc")
  })
})

describe("what held", () => {
  for (const implementation of ["native", "wasm"] as const) {
    it(`a hash whose tag is 1-3 bytes never verifies (no 1-in-256 match), ${implementation}`, async () => {
      for (const short of ["AA", "AAA", "AAAA"]) {
        for (let i = 0; i < 20; i++) {
          await expect(verifyPassword(`guess-${i}`, `$argon2id$v=19$m=8,t=1,p=1$${salt}$${short}`, { implementation })).rejects.toBeInstanceOf(UnsupportedPasswordHash)
        }
      }
    })
  }

  it("the ordinary costs of other libraries still verify", () => {
    expect(argon2ParamsOf(`$argon2id$v=19$m=65536,t=3,p=4$${salt}$${tag}`)).toBeDefined()
    expect(legacyFormatOf(`$scrypt$ln=16,r=8,p=1$${salt}$${tag}`)).toBe("scrypt-phc")
    expect(legacyFormatOf("$2b$12$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW")).toBe("bcrypt")
  })
})
