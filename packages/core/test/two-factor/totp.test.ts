/**
 * Issue 20, part 3 (the building blocks): TOTP enrollment and verification (RFC 6238) with
 * replay refusal, and single-use backup codes kept as hashes.
 */
import { describe, expect, it } from "vitest"
import { Secret, TOTP, URI } from "otpauth"
import { createBackupCodes, createTotpEnrollment, totpCode, useBackupCode, verifyTotp } from "@portcullis/core/two-factor"
import { readQr } from "./qr-read.js"

// RFC 6238 Appendix B: the SHA-1 seed "12345678901234567890"; at T = 59 s the 8-digit code is
// 94287082, so the 6-digit one is its last six digits; at T = 1111111109 s, 07081804.
const RFC_SECRET = Secret.fromLatin1("12345678901234567890").base32

describe("TOTP verification", () => {
  it("accepts the RFC 6238 test vector codes at their times", () => {
    expect(totpCode(RFC_SECRET, 59_000)).toBe("287082")
    expect(verifyTotp({ secret: RFC_SECRET, code: "287082", now: 59_000 })).toEqual({ valid: true, step: 1 })
    expect(totpCode(RFC_SECRET, 1_111_111_109_000)).toBe("081804")
    expect(verifyTotp({ secret: RFC_SECRET, code: "081804", now: 1_111_111_109_000 }).valid).toBe(true)
  })

  it("allows one step of clock drift either way, and no more", () => {
    const now = 1_700_000_000_000
    const at = (offset: number) => totpCode(RFC_SECRET, now + offset * 30_000)
    for (const offset of [-1, 0, 1]) expect(verifyTotp({ secret: RFC_SECRET, code: at(offset), now }).valid, `offset ${offset}`).toBe(true)
    for (const offset of [-3, -2, 2, 3]) {
      const code = at(offset)
      // A code of a farther step may equal a near one by chance (1 in a million): skip that case.
      if ([-1, 0, 1].some((near) => at(near) === code)) continue
      expect(verifyTotp({ secret: RFC_SECRET, code, now }), `offset ${offset}`).toEqual({ valid: false, reason: "wrong" })
    }
  })

  it("refuses a code whose step was already used, and an earlier one after a later", () => {
    const now = 1_700_000_000_000
    const first = verifyTotp({ secret: RFC_SECRET, code: totpCode(RFC_SECRET, now), now })
    expect(first.valid).toBe(true)
    const step = (first as { step: number }).step
    expect(verifyTotp({ secret: RFC_SECRET, code: totpCode(RFC_SECRET, now), now, lastUsedStep: step })).toEqual({ valid: false, reason: "reused" })
    // The previous step's code is still inside the drift window, but older than the one used.
    expect(verifyTotp({ secret: RFC_SECRET, code: totpCode(RFC_SECRET, now - 30_000), now, lastUsedStep: step })).toEqual({ valid: false, reason: "reused" })
    expect(verifyTotp({ secret: RFC_SECRET, code: totpCode(RFC_SECRET, now + 30_000), now: now + 30_000, lastUsedStep: step }).valid).toBe(true)
  })

  it("reads spaces and dashes in the code, and refuses anything but six ASCII digits before any work", () => {
    const now = 59_000
    expect(verifyTotp({ secret: RFC_SECRET, code: "287 082", now }).valid).toBe(true)
    expect(verifyTotp({ secret: RFC_SECRET, code: "287-082", now }).valid).toBe(true)
    for (const code of ["", "28708", "2870821", "28708a", "٢٨٧٠٨٢", "287082\u0000", "9".repeat(100_000), 287082 as unknown as string]) {
      expect(verifyTotp({ secret: RFC_SECRET, code, now })).toEqual({ valid: false, reason: "malformed" })
    }
  })
})

describe("TOTP enrollment", () => {
  it("makes a fresh 160-bit secret, a URI authenticator apps read, and a QR code of it", async () => {
    const a = await createTotpEnrollment({ issuer: "Portcullis Demo", account: "ada@example.com" })
    const b = await createTotpEnrollment({ issuer: "Portcullis Demo", account: "ada@example.com" })
    expect(a.secret).not.toBe(b.secret)
    expect(Secret.fromBase32(a.secret).bytes.length).toBe(20)
    const parsed = URI.parse(a.uri) as TOTP
    expect(parsed).toBeInstanceOf(TOTP)
    expect(parsed.issuer).toBe("Portcullis Demo")
    expect(parsed.label).toBe("ada@example.com")
    expect(parsed.secret.base32).toBe(a.secret)
    expect([parsed.digits, parsed.period, parsed.algorithm]).toEqual([6, 30, "SHA1"])
    // The QR code, read by an independent decoder, is the URI (qr.test.ts reads more of them).
    expect(readQr(a.qrSvg).text).toBe(a.uri)
    // The code the enrolled app would show now is accepted.
    expect(verifyTotp({ secret: a.secret, code: parsed.generate() }).valid).toBe(true)
  })

  it("refuses an empty issuer or account, or one with a colon, and escapes the rest in the URI", async () => {
    for (const options of [{ issuer: "", account: "a" }, { issuer: "A", account: " " }, { issuer: "Evil:Corp", account: "a" }, { issuer: "A", account: "x".repeat(201) }]) {
      await expect(createTotpEnrollment(options)).rejects.toThrow(TypeError)
    }
    const { uri } = await createTotpEnrollment({ issuer: "A & B", account: "o'brien+tag@example.com" })
    expect(uri).toContain("issuer=A%20%26%20B")
    expect((URI.parse(uri) as TOTP).label).toBe("o'brien+tag@example.com")
  })
})

describe("backup codes", () => {
  it("are ten distinct codes from an unambiguous alphabet, stored as hashes only", async () => {
    const { codes, hashes } = await createBackupCodes()
    expect(codes).toHaveLength(10)
    expect(new Set(codes).size).toBe(10)
    for (const code of codes) expect(code).toMatch(/^[a-hj-km-np-z2-9]{5}-[a-hj-km-np-z2-9]{5}$/)
    for (const hash of hashes) expect(hash).toMatch(/^[0-9a-f]{64}$/)
    expect(hashes.join()).not.toContain(codes[0]!.replace("-", ""))
  })

  it("match their own hash whatever the case, spaces or dash; a removed hash no longer matches", async () => {
    const { codes, hashes } = await createBackupCodes(3)
    const index = await useBackupCode(` ${codes[1]!.toUpperCase().replace("-", " ")} `, hashes)
    expect(index).toBe(1)
    const remaining = hashes.filter((_, i) => i !== index)
    expect(await useBackupCode(codes[1]!, remaining)).toBe(-1)
    expect(await useBackupCode(codes[2]!, remaining)).toBe(1)
  })

  it("never match a wrong, empty or huge input", async () => {
    const { hashes } = await createBackupCodes()
    for (const code of ["", "aaaaa-aaaaa", "x".repeat(10_000), null as unknown as string]) expect(await useBackupCode(code, hashes)).toBe(-1)
    await expect(createBackupCodes(0)).rejects.toThrow(TypeError)
    await expect(createBackupCodes(1000)).rejects.toThrow(TypeError)
  })

  it("stay distinct across 50 sets made at once", async () => {
    const sets = await Promise.all(Array.from({ length: 50 }, () => createBackupCodes()))
    const all = sets.flatMap((s) => s.codes)
    expect(new Set(all).size).toBe(all.length)
  })
})
