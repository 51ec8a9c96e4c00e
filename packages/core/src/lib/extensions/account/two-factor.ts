/**
 * Two-factor, wrapping core's enrollment (`lib/two-factor/enrollment.ts`): the pending
 * enrollment's QR code and key can be shown again from the sealed secret, so a wrong first
 * code does not lose them.
 * @module
 */
import { Secret, TOTP } from "otpauth"
import type { RequestContext } from "../../context.js"
import { confirmEnrollment, disable, regenerateBackupCodes, startEnrollment, twoFactorStatus } from "../../two-factor/enrollment.js"
import { openSecret } from "../../two-factor/secret.js"
import type { AccountEnrollment, AccountTwoFactor } from "../account-api.js"
import { signedIn, unsupported } from "./signed-in.js"

/** The base32 key in groups of four, as people type it. */
function grouped(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, "$1 ")
}

function accountLabel(user: { id: string; email?: string | null }): string {
  // A label with a colon is ambiguous to authenticator apps (createTotpEnrollment refuses it).
  return (user.email ?? user.id).replaceAll(":", "")
}

function issuerOf(ctx: RequestContext): string {
  return ctx.config.twoFactor?.issuer ?? ctx.config.siteUrl?.hostname ?? "Portcullis"
}

function codeOf(code: unknown): string {
  // Codes are 6 digits or a backup code: anything longer is no code (and no work to check).
  return typeof code === "string" ? code.slice(0, 64) : ""
}

export async function status(ctx: RequestContext): Promise<AccountTwoFactor> {
  const { user } = await signedIn(ctx)
  if (!ctx.config.twoFactor) return { available: false, enabled: false, pending: false, backupCodesLeft: 0 }
  return { available: true, ...(await twoFactorStatus(ctx.config, user.id)) }
}

export async function start(ctx: RequestContext): Promise<AccountEnrollment> {
  const { user } = await signedIn(ctx)
  if (!ctx.config.twoFactor) throw unsupported("twoFactor option")
  const { qrSvg, uri, secret } = await startEnrollment(ctx.config, { userId: user.id, account: accountLabel(user) })
  return { qrSvg, uri, manualKey: grouped(secret) }
}

export async function pending(ctx: RequestContext): Promise<AccountEnrollment | null> {
  const { user } = await signedIn(ctx)
  const settings = ctx.config.twoFactor
  if (!settings) return null
  const record = await settings.store.getTwoFactor(user.id)
  if (!record || record.enabled) return null
  const secret = await openSecret(ctx.config, record.secret)
  if (!secret) return null
  const totp = new TOTP({ issuer: issuerOf(ctx), label: accountLabel(user), secret: Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: 30 })
  const uri = totp.toString()
  const { qrSvg } = await import("../../two-factor/qr.js")
  return { qrSvg: qrSvg(uri), uri, manualKey: grouped(secret) }
}

export async function confirm(ctx: RequestContext, code: unknown): Promise<{ backupCodes: string[] }> {
  const { user } = await signedIn(ctx)
  if (!ctx.config.twoFactor) throw unsupported("twoFactor option")
  return confirmEnrollment(ctx.config, { userId: user.id, code: codeOf(code), ...(ctx.clientAddress && { address: ctx.clientAddress }) })
}

export async function turnOff(ctx: RequestContext, code: unknown): Promise<void> {
  const { user } = await signedIn(ctx)
  if (!ctx.config.twoFactor) throw unsupported("twoFactor option")
  await disable(ctx.config, { userId: user.id, code: codeOf(code), ...(ctx.clientAddress && { address: ctx.clientAddress }) })
}

export async function regenerate(ctx: RequestContext, code: unknown): Promise<{ backupCodes: string[] }> {
  const { user } = await signedIn(ctx)
  if (!ctx.config.twoFactor) throw unsupported("twoFactor option")
  return regenerateBackupCodes(ctx.config, { userId: user.id, code: codeOf(code), ...(ctx.clientAddress && { address: ctx.clientAddress }) })
}
