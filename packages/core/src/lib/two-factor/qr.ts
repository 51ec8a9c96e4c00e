/**
 * A QR code as inline SVG. The encoding (version, error correction, masking) is
 * `qrcode-generator`'s, a single module without dependencies and without Node built-ins, so
 * edge bundles can carry it (`runtimes/test/edge-safe.test.ts`); only the drawing is here.
 * @module
 */
import qrcode from "qrcode-generator"

/** How much of the code may be damaged and still read: about 7, 15, 25 or 30 %. */
export type QrErrorCorrection = "L" | "M" | "Q" | "H"

/**
 * `text` as a QR code, drawn as one SVG path with a 2-module quiet zone. Error correction M
 * unless told: what enrollment uses, a smaller code than Q or H for an otpauth URI, still
 * read through a smudged screen.
 *
 * @throws RangeError when the text is longer than the largest code holds (2,331 bytes at M).
 */
export function qrSvg(text: string, errorCorrection: QrErrorCorrection = "M"): string {
  // Version 0 lets the encoder pick the smallest version that holds the data.
  const code = qrcode(0, errorCorrection)
  // Byte mode takes one character per byte; the text's UTF-8 bytes are what scanners expect.
  const bytes = new TextEncoder().encode(text)
  code.addData(String.fromCharCode(...bytes), "Byte")
  try {
    code.make()
  } catch (cause) {
    // The encoder throws a bare string ("code length overflow …"); callers get an Error.
    throw new RangeError(`qrSvg: ${bytes.length} bytes do not fit in a QR code at error correction ${errorCorrection}`, { cause })
  }
  const count = code.getModuleCount()
  const margin = 2
  const size = count + margin * 2
  let path = ""
  for (let row = 0; row < count; row++) {
    for (let col = 0; col < count; col++) {
      if (code.isDark(row, col)) path += `M${col + margin} ${row + margin}h1v1h-1z`
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges" role="img" aria-label="QR code"><rect width="${size}" height="${size}" fill="#fff"/><path fill="#000" d="${path}"/></svg>`
}
