/**
 * How one code is judged against a user's record (issue 36), shared by the sign-in step and
 * the enrollment API: what is malformed (and so never reaches a hash or the secret), what
 * counts as a TOTP code, that each code is used up in the store, and which refusals count
 * against the user's wrong-code cap. The flows over HTTP are in attacks.test.ts and
 * settings-brute-force.test.ts.
 */
import { describe, expect, it } from "vitest"
import type { AdapterTwoFactor } from "@portcullis/core/adapters"
import { runtimeFor } from "@portcullis/core/integration"
import { createBackupCodes, createTotpEnrollment, totpCode } from "@portcullis/core/two-factor"
import { checkCode, isGuess, type CodeCheck } from "../../src/lib/two-factor/verify.js"
import { sealSecret } from "../../src/lib/two-factor/secret.js"
import { ADA_ID, twoFactorApp } from "./support.js"

/** Ada's enabled record, stored, with its secret and backup codes in plain text. */
async function enrolled(extra: Parameters<typeof twoFactorApp>[0] = {}) {
  const config = runtimeFor(twoFactorApp(extra).config).config
  const store = config.twoFactor!.store
  const { secret } = await createTotpEnrollment({ issuer: "Example", account: "ada@example.com" })
  const { codes, hashes } = await createBackupCodes()
  const record: AdapterTwoFactor = { userId: ADA_ID, secret: await sealSecret(config, secret), enabled: true, lastUsedStep: null, backupCodes: hashes }
  await store.setTwoFactor(record)
  return { config, store, record, secret, codes }
}

describe("a malformed code", () => {
  it("is one that is no string, empty, blank or longer than 64 characters", async () => {
    const { config, store, record } = await enrolled()
    for (const code of [undefined, 123456, ["123456"], "", "   ", "x".repeat(65)]) {
      expect(await checkCode(config, store, record, code), JSON.stringify(code)).toEqual({ ok: false, reason: "malformed" })
    }
  })

  it("is not one of 64 characters: that is judged (and wrong)", async () => {
    const { config, store, record } = await enrolled()
    expect(await checkCode(config, store, record, "x".repeat(64))).toEqual({ ok: false, reason: "wrong" })
  })
})

describe("a TOTP code", () => {
  it("passes with spaces or a dash inside, as apps show it", async () => {
    for (const format of [(c: string) => `${c.slice(0, 3)} ${c.slice(3)}`, (c: string) => `${c.slice(0, 3)}-${c.slice(3)}`]) {
      const { config, store, record, secret } = await enrolled()
      expect(await checkCode(config, store, record, format(totpCode(secret)))).toEqual({ ok: true, used: "totp" })
    }
  })

  it("is exactly six digits: seven digits, or six with a letter, are judged as backup codes (and wrong)", async () => {
    const { config, store, record, secret } = await enrolled()
    for (const code of [`${totpCode(secret)}1`, `1${totpCode(secret)}`, `a${totpCode(secret).slice(1)}`]) {
      expect(await checkCode(config, store, record, code), code).toEqual({ ok: false, reason: "wrong" })
    }
  })

  it("is used up in the store: a second use from a stale record is refused as reused", async () => {
    const { config, store, record, secret } = await enrolled()
    const code = totpCode(secret)
    expect(await checkCode(config, store, record, code)).toEqual({ ok: true, used: "totp" })
    expect(await checkCode(config, store, record, code)).toEqual({ ok: false, reason: "reused" })
    expect((await store.getTwoFactor(ADA_ID))!.lastUsedStep).toBeTypeOf("number")
  })

  it("is refused as unreadable when the secret was sealed under a secret no longer configured", async () => {
    const { store, record, secret } = await enrolled()
    const rotated = runtimeFor(twoFactorApp({ secret: "another-secret-with-at-least-32-characters!" }).config).config
    expect(await checkCode(rotated, store, record, totpCode(secret))).toEqual({ ok: false, reason: "unreadable" })
  })

  it("is refused as wrong when it is not the secret's code", async () => {
    const { config, store, record, secret } = await enrolled()
    const near = new Set([-1, 0, 1].map((step) => totpCode(secret, Date.now() + step * 30_000)))
    const wrong = ["000000", "111111", "222222"].find((code) => !near.has(code))!
    expect(await checkCode(config, store, record, wrong)).toEqual({ ok: false, reason: "wrong" })
  })
})

describe("a backup code", () => {
  it("passes once; a second use from a stale record is refused as reused, and the store holds one code fewer", async () => {
    const { config, store, record, codes } = await enrolled()
    expect(await checkCode(config, store, record, codes[3])).toEqual({ ok: true, used: "backup" })
    expect(await checkCode(config, store, record, codes[3])).toEqual({ ok: false, reason: "reused" })
    expect((await store.getTwoFactor(ADA_ID))!.backupCodes).toHaveLength(9)
  })

  it("is refused as wrong when it is none of the user's", async () => {
    const { config, store, record } = await enrolled()
    expect(await checkCode(config, store, record, "aaaaa-aaaaa")).toEqual({ ok: false, reason: "wrong" })
  })
})

describe("which refusals count against the user's wrong-code cap", () => {
  it("counts wrong and malformed codes, not a passed, reused or unreadable one", () => {
    const cases: [CodeCheck, boolean][] = [
      [{ ok: false, reason: "wrong" }, true],
      [{ ok: false, reason: "malformed" }, true],
      [{ ok: false, reason: "reused" }, false],
      [{ ok: false, reason: "unreadable" }, false],
      [{ ok: true, used: "totp" }, false],
      [{ ok: true, used: "backup" }, false],
    ]
    for (const [check, counted] of cases) expect(isGuess(check), JSON.stringify(check)).toBe(counted)
  })
})
