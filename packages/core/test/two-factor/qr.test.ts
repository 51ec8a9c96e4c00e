/**
 * Issue 30: the QR code of an enrollment, drawn by `qrSvg` from `qrcode-generator`'s modules,
 * read back by an independent decoder (`jsqr`) — for URIs short and long, ASCII and not, at
 * every error-correction level.
 */
import { describe, expect, it } from "vitest"
import { TOTP, Secret } from "otpauth"
import { qrSvg, type QrErrorCorrection } from "../../src/lib/two-factor/qr.js"
import { drawnCells, readQr } from "./qr-read.js"

const LEVELS: QrErrorCorrection[] = ["L", "M", "Q", "H"]

/** An otpauth URI as enrollment makes it, for this issuer and account. */
const uri = (issuer: string, account: string) =>
  new TOTP({ issuer, label: account, secret: new Secret({ size: 20 }), algorithm: "SHA1", digits: 6, period: 30 }).toString()

const uris = {
  short: uri("A", "b"),
  typical: uri("Portcullis Demo", "ada@example.com"),
  "non-ASCII": uri("Bäckerei Müller", "zoë@例え.jp"),
  // The longest names enrollment accepts (200 characters each).
  longest: uri("I".repeat(200), "a".repeat(190) + "@example.com"),
}

describe("a QR code of an otpauth URI", () => {
  for (const [name, text] of Object.entries(uris)) {
    for (const level of LEVELS) {
      it(`reads back as the URI: ${name} (${new TextEncoder().encode(text).length} bytes), error correction ${level}`, () => {
        const read = readQr(qrSvg(text, level))
        expect(read.text).toBe(text)
        expect(read.bytes).toEqual([...new TextEncoder().encode(text)])
      })
    }
  }

  it("uses error correction M unless told", () => {
    expect(qrSvg(uris.typical)).toBe(qrSvg(uris.typical, "M"))
  })
})

// ISO/IEC 18004 table 7, byte mode: bytes a code of version 1 to 4 holds at each level.
const CAPACITY: Record<QrErrorCorrection, number[]> = { L: [17, 32, 53, 78], M: [14, 26, 42, 62], Q: [11, 20, 32, 46], H: [7, 14, 24, 34] }

describe("the size of the code", () => {
  it("is the smallest version that holds the text at the level asked for", () => {
    for (const length of [1, 7, 8, 11, 12, 14, 15, 17, 18, 24, 26, 32]) {
      for (const level of LEVELS) {
        const expected = CAPACITY[level].findIndex((capacity) => length <= capacity) + 1
        const svg = qrSvg("x".repeat(length), level)
        expect(readQr(svg).version, `${length} bytes at ${level}`).toBe(expected)
        // A version-v code is 17 + 4v modules a side; the drawing adds 2 on each side.
        expect(drawnCells(svg).size, `${length} bytes at ${level}`).toBe(17 + 4 * expected + 4)
      }
    }
  })

  it("goes up to version 40 and refuses, with an Error, a text no version holds", () => {
    // Version 40 holds 2,331 bytes at M.
    expect(readQr(qrSvg("x".repeat(2331))).version).toBe(40)
    expect(() => qrSvg("x".repeat(2332))).toThrow(RangeError)
    expect(() => qrSvg("é".repeat(1200))).toThrow(/2400 bytes do not fit in a QR code at error correction M/)
  })
})

describe("the drawing", () => {
  it("is a white square with a 2-module quiet zone and the three finder patterns", () => {
    const { size, dark } = drawnCells(qrSvg(uris.typical))
    const modules = size - 4
    // Nothing dark in the quiet zone.
    for (const cell of dark) {
      const [x, y] = cell.split(",").map(Number) as [number, number]
      expect(Math.min(x, y) >= 2 && Math.max(x, y) < size - 2, cell).toBe(true)
    }
    // A 7×7 dark ring with a white ring inside and a 3×3 dark centre, at each corner but the bottom right.
    for (const [left, top] of [[2, 2], [2 + modules - 7, 2], [2, 2 + modules - 7]] as const) {
      for (let y = 0; y < 7; y++) {
        for (let x = 0; x < 7; x++) {
          const ring = Math.max(Math.abs(x - 3), Math.abs(y - 3))
          expect(dark.has(`${left + x},${top + y}`), `finder at ${left},${top}: ${x},${y}`).toBe(ring !== 2)
        }
      }
    }
  })
})
