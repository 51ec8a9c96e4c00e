/**
 * Security notices (docs/notifications.md): when something that guards an account changes —
 * its password, second factor, backup codes, passkeys, address — or it signs in from a new
 * device, the `securityNotice` event fires and the account's address gets an email, in the
 * request's language, through the same sender as the other mails. A notice is a side effect:
 * a sender that fails or hangs never fails the action that caused it (a bounded warning).
 *
 * Call sites stay one line: `await notify(ctx, user, "passwordChanged")` in a request, or
 * `await notify(config, userId, "twoFactorEnabled")` in a server function.
 * @module
 */
import type { ResolvedConfig } from "../config/resolved.js"
import type { RequestContext } from "../context.js"
import { loadedMessagesOf, requestLocale } from "../i18n/index.js"
import type { Awaitable } from "../../base-types.js"
import type { EmailConfig } from "../../providers/email.js"
import { customFetch } from "../../symbols.js"
import { audit } from "../audit/index.js"
import { deviceOf, knownDevice } from "./device.js"
import { noticeEmail } from "./message.js"
import type { NoticeDevice, SecurityNoticeKind } from "./options.js"

export type { SecurityNoticeKind } from "./options.js"

/** Where a notice comes from: a request (its language, device and origin), or only the configuration. */
export type NoticeSource = RequestContext | ResolvedConfig

/** Whose account: an id (the address is read from the adapter), or a user with its address. */
export type NoticeUser = string | { id: string; email?: string | null | undefined }

/** How long a sender may take before the action goes on without it (the HTTP senders' own limit). */
const SEND_TIMEOUT_MS = 15_000

function isRequest(source: NoticeSource): source is RequestContext {
  return "cookieOptions" in source && "request" in source
}

/**
 * Sends the notice of `kind` to `user`: the email (when the `notifications` option mails
 * this kind and the user has an address), then the `securityNotice` event. Never throws;
 * whatever goes wrong is a `security-notice-unsent` warning.
 *
 * For `emailChanged`, pass the user with the *old* address: the notice warns whoever held
 * the account before.
 */
export async function notify(source: NoticeSource, user: NoticeUser, kind: SecurityNoticeKind): Promise<void> {
  const ctx = isRequest(source) ? source : undefined
  const config = ctx?.config ?? (source as ResolvedConfig)
  const time = new Date()
  const userId = typeof user === "string" ? user : user.id
  let email = typeof user === "string" ? undefined : user.email
  let device: NoticeDevice | undefined
  let emailed = false
  try {
    device = ctx ? deviceOf(ctx) : undefined
    if (email === undefined) email = (await config.adapter?.getUser?.(userId))?.email ?? null
    if (email && config.notifications.mails(kind)) emailed = await mailNotice(config, ctx, { kind, email, time, device })
  } catch (error) {
    unsent(config, kind, error)
  }
  await config.events.securityNotice({ kind, userId, email: email ?? null, time, ...(device && { device }), emailed })
  // The account changes are audit events too; a new device is part of its `signIn`, and a
  // 2FA reset has its own event with the actor (`two-factor/recovery.ts`).
  if (kind !== "newDevice" && kind !== "twoFactorReset") await audit(source, { type: kind, outcome: "success", userId })
}

/**
 * The `newDevice` notice, from `establishSession` once a session exists: with
 * `notifications.newDevice` on, a browser without this account in its `knownDevice` cookie
 * is a new device. The cookie is (re)set either way; an account's very first sign-in is no
 * news to anyone.
 */
export async function noticeNewDevice(ctx: RequestContext, result: { user: { id?: string | undefined; email?: string | null | undefined }; isNewUser?: boolean | undefined }): Promise<void> {
  const userId = result.user.id
  if (!ctx.config.notifications.newDevice || typeof userId !== "string" || !userId) return
  try {
    const { known, cookie } = await knownDevice(ctx, userId)
    ctx.setCookies.push(cookie)
    if (known || result.isNewUser) return
  } catch (error) {
    unsent(ctx.config, "newDevice", error)
    return
  }
  await notify(ctx, { id: userId, email: result.user.email }, "newDevice")
}

/**
 * Hands the notice to the sender, in the shape of any other email of Portcullis. Answers
 * whether it went out; `false` without an origin to link to.
 */
async function mailNotice(config: ResolvedConfig, ctx: RequestContext | undefined, notice: { kind: SecurityNoticeKind; email: string; time: Date; device: NoticeDevice | undefined }): Promise<boolean> {
  const mailer = config.notifications.mailer!
  const origin = linkOrigin(config, ctx)
  if (!origin) {
    config.logLimiter.warn("security-notice-unsent", notice.kind, { reason: "no trusted origin to link to: set AUTH_URL or trustedOrigins" })
    return false
  }
  // The button leads where a worried user can act: the forgot-password page, else sign-in. Never a token.
  const resetLink = config.providers.some((p) => p.type === "password")
  const url = resetLink ? `${origin}${config.basePath}/password/forgot` : config.pages.signIn ? new URL(config.pages.signIn, origin).href : `${origin}${config.basePath}/signin`
  const locale = ctx ? requestLocale(ctx) : config.i18n.defaultLocale
  const all = await loadedMessagesOf(config.i18n, locale)
  const messages = noticeEmail(all, notice.kind, { time: notice.time, locale, device: notice.device, resetLink })
  const sender: EmailConfig = { ...mailer, [customFetch]: mailer[customFetch] ?? config.fetch }
  await withinTimeout(
    mailer.sendVerificationRequest({
      identifier: notice.email,
      url,
      expires: notice.time,
      provider: sender,
      token: "",
      theme: config.theme,
      // A server function has no request of its own: the sender sees a GET of the link.
      request: ctx?.request ?? new Request(url),
      language: { locale, dir: all.dir, messages },
      notice: { kind: notice.kind },
    }),
  )
  return true
}

/**
 * The origin of the notice's link: only a trusted one, since the mail goes to someone who
 * will click it — the request's when trusted, else `AUTH_URL`'s, else the first exact
 * `trustedOrigins` entry (a server function has no request).
 */
function linkOrigin(config: ResolvedConfig, ctx: RequestContext | undefined): string | undefined {
  if (ctx?.originTrusted) return ctx.origin
  if (config.siteUrl) return config.siteUrl.origin
  const exact = config.trustedOrigins.patterns.find((p) => !p.includes("*"))
  return exact ? new URL(exact).origin : undefined
}

async function withinTimeout(sending: Awaitable<void>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the sender did not finish within ${SEND_TIMEOUT_MS / 1000} s`)), SEND_TIMEOUT_MS)
  })
  try {
    await Promise.race([sending, late])
  } finally {
    clearTimeout(timer)
  }
}

/** A notice that could not go out: a warning, bounded per kind, never the action's failure. */
function unsent(config: ResolvedConfig, kind: SecurityNoticeKind, error: unknown): void {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  config.logLimiter.warn("security-notice-unsent", kind, { reason: message.slice(0, 300) })
}
