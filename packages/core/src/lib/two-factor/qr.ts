/**
 * A QR code as inline SVG. The encoding is `qrcode`'s (`create`: mode, version, error
 * correction, masking); only the drawing is here, because `qrcode`'s own renderers import
 * `fs` and `pngjs`, which an edge bundle must not contain (`runtimes/test/edge-safe.test.ts`).
 * @module
 */
import { create } from "qrcode/lib/core/qrcode.js"

/** `text` as a QR code (error correction M), drawn as one SVG path with a 2-module quiet zone. */
export function qrSvg(text: string): string {
  const { modules } = create(text, { errorCorrectionLevel: "M" })
  const margin = 2
  const size = modules.size + margin * 2
  let path = ""
  for (let row = 0; row < modules.size; row++) {
    for (let col = 0; col < modules.size; col++) {
      if (modules.data[row * modules.size + col]) path += `M${col + margin} ${row + margin}h1v1h-1z`
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges" role="img" aria-label="QR code"><rect width="${size}" height="${size}" fill="#fff"/><path fill="#000" d="${path}"/></svg>`
}
