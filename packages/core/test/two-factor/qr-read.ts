/**
 * Reads a QR code SVG the way a phone does: the drawn modules become pixels, and `jsqr` (a
 * decoder written apart from the encoder) locates and decodes them. Only the shape `qrSvg`
 * draws is understood (a white square, then one black path of 1×1 cells); anything else
 * fails the read, so a changed drawing shows up here.
 */
import jsQR from "jsqr"

/** What the SVG draws: its side in modules (quiet zone included) and its dark cells as "x,y". */
export function drawnCells(svg: string): { size: number; dark: Set<string> } {
  const shape = /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 (\d+) \1" [^>]*><rect width="\1" height="\1" fill="#fff"\/><path fill="#000" d="([^"]*)"\/><\/svg>$/.exec(svg)
  if (!shape) throw new Error(`not a QR code drawing: ${svg.slice(0, 200)}`)
  const cells = shape[2]!.match(/M\d+ \d+h1v1h-1z/g) ?? []
  // Every byte of the path is a cell: nothing else is drawn.
  if (cells.join("") !== shape[2]) throw new Error("the path draws something besides 1×1 cells")
  return { size: Number(shape[1]), dark: new Set(cells.map((cell) => /M(\d+) (\d+)/.exec(cell)!.slice(1, 3).join(","))) }
}

/** The decoded code: its bytes, and the version (size) the decoder found. */
export function readQr(svg: string): { bytes: number[]; text: string; version: number } {
  const { size, dark } = drawnCells(svg)
  // 4 pixels a module: small enough to be quick, large enough that the locator never guesses.
  const scale = 4
  const side = size * scale
  const pixels = new Uint8ClampedArray(side * side * 4).fill(255)
  for (const cell of dark) {
    const [x, y] = cell.split(",").map(Number) as [number, number]
    for (let dy = 0; dy < scale; dy++) {
      for (let dx = 0; dx < scale; dx++) {
        const at = ((y * scale + dy) * side + x * scale + dx) * 4
        pixels[at] = pixels[at + 1] = pixels[at + 2] = 0
      }
    }
  }
  const code = jsQR(pixels, side, side, { inversionAttempts: "dontInvert" })
  if (!code) throw new Error("no QR code found in the drawing")
  return { bytes: code.binaryData, text: code.data, version: code.version }
}
