// The part of `qrcode` used here (its core encoder, a CommonJS module without types of its own).
declare module "qrcode/lib/core/qrcode.js" {
  export function create(text: string, options?: { errorCorrectionLevel?: "L" | "M" | "Q" | "H" }): { modules: { size: number; data: Uint8Array } }
}
