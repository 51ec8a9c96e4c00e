/**
 * The account center's actions: each a `POST` route that answers JSON to a client and, to a
 * form posted without JavaScript, a redirect back to the page with a localized notice or
 * problem. Core has checked the origin, the CSRF token, the session, the step-up and the
 * rate limit before any of them runs; each parses, acts through `req.account` (core's own
 * operations) and emits its audit event (`account.<name>`).
 * @module
 */
import { ExtensionRequestError, type ExtensionRequest, type ExtensionResponse, type ExtensionRoute, type Json } from "@portcullis/core/extension"
import type { AccountLocals } from "./options.js"
import { backupCodesPage, deletedPage, emailConfirmPage } from "./page.js"
import { requestEmailChange } from "./email.js"

type Request = ExtensionRequest<AccountLocals>

/** Refusals a form is sent back with (`?problem=<code>`); anything else is an outage or a bug. */
const CLIENT_ERRORS = new Set(["ExtensionRequestError", "PasswordRejected", "TwoFactorCodeInvalid", "TwoFactorStateError", "RateLimited", "SessionManagementUnsupported"])

/** Whether the request is a form posted by the page (not a client's JSON). */
export function isForm(req: Request): boolean {
  return (req.headers.get("content-type") ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded")
}

/** The page's URL with a notice or problem, at a section. */
export function back(req: Request, section: string, message: { notice?: string; problem?: string; values?: Record<string, string> }): ExtensionResponse {
  const url = new URL(`${req.authUrl}/account`)
  if (message.notice) url.searchParams.set("notice", message.notice)
  if (message.problem) url.searchParams.set("problem", message.problem)
  for (const [k, v] of Object.entries(message.values ?? {})) url.searchParams.set(k, v)
  url.hash = section
  return { redirect: url.href }
}

function text(value: unknown, max = 4096): string {
  if (value === undefined || value === null) return ""
  if (typeof value !== "string") throw new ExtensionRequestError("invalid-input", "Expected text", 422)
  if (value.length > max) throw new ExtensionRequestError("too-long", `At most ${max} characters`, 422)
  return value
}

interface Action {
  path: string
  /** The audit event's name (`account.<name>`) and the page's section. */
  name: string
  section: string
  stepUp?: boolean
  /** Tighter than the default 30 a minute, where each call mails someone. */
  rateLimit?: { max: number; window: number }
  run(req: Request, userId: string): Promise<{ json: Json | object; notice?: string; values?: Record<string, string>; page?: ExtensionResponse }>
}

const ACTIONS: Action[] = [
  {
    path: "profile",
    name: "profileUpdated",
    section: "profile",
    async run(req) {
      const patch: { name?: string | null; image?: string | null } = {}
      if ("name" in req.body) patch.name = text(req.body.name, 400) || null
      if ("image" in req.body) patch.image = text(req.body.image, 4096) || null
      const user = await req.account.updateProfile(patch)
      return { json: { user }, notice: "saved" }
    },
  },
  {
    path: "email",
    name: "emailChangeRequested",
    section: "email",
    stepUp: true,
    // Each request mails an address the caller chose: a few an hour, not a mail cannon.
    rateLimit: { max: 5, window: 3600 },
    async run(req, userId) {
      await requestEmailChange(req, userId, text(req.body.email, 1280))
      return { json: { sent: true }, notice: "emailSent" }
    },
  },
  {
    path: "email/confirm",
    name: "emailChanged",
    section: "email",
    async run(req) {
      const changed = await req.account.confirmEmailChange(text(req.body.email, 1280), text(req.body.token, 256))
      if (!changed) throw new ExtensionRequestError("link-invalid", "This link is invalid, expired or used", 410)
      return { json: { email: changed.email }, notice: "emailChanged" }
    },
  },
  {
    path: "accounts/:provider/unlink",
    name: "accountUnlinked",
    section: "accounts",
    stepUp: true,
    async run(req) {
      await req.account.unlink(req.params.provider!)
      return { json: { unlinked: req.params.provider! }, notice: "unlinked" }
    },
  },
  {
    path: "passkeys/:id/rename",
    name: "passkeyRenamed",
    section: "passkeys",
    async run(req) {
      await req.account.renamePasskey(req.params.id!, text(req.body.name, 400))
      return { json: { renamed: true }, notice: "renamed" }
    },
  },
  {
    path: "passkeys/:id/remove",
    name: "passkeyRemoved",
    section: "passkeys",
    stepUp: true,
    async run(req) {
      await req.account.removePasskey(req.params.id!)
      return { json: { removed: true }, notice: "removed" }
    },
  },
  {
    path: "password/set",
    name: "passwordSet",
    section: "password",
    stepUp: true,
    async run(req) {
      await req.account.setPassword(text(req.body.password, 8192))
      return { json: { set: true }, notice: "passwordSet" }
    },
  },
  {
    path: "password/change",
    name: "passwordChanged",
    section: "password",
    async run(req) {
      await req.account.changePassword(text(req.body.currentPassword, 8192), text(req.body.password, 8192))
      return { json: { changed: true }, notice: "passwordChanged" }
    },
  },
  {
    path: "two-factor/start",
    name: "twoFactorStarted",
    section: "two-factor",
    stepUp: true,
    async run(req) {
      const enrollment = await req.account.startTwoFactor()
      return { json: enrollment }
    },
  },
  {
    path: "two-factor/confirm",
    name: "twoFactorEnabled",
    section: "two-factor",
    stepUp: true,
    async run(req) {
      const { backupCodes } = await req.account.confirmTwoFactor(text(req.body.code, 64))
      return { json: { backupCodes }, page: await backupCodesPage(req, backupCodes) }
    },
  },
  {
    path: "two-factor/disable",
    name: "twoFactorDisabled",
    section: "two-factor",
    stepUp: true,
    async run(req) {
      await req.account.disableTwoFactor(text(req.body.code, 64))
      return { json: { disabled: true }, notice: "twoFactorOff" }
    },
  },
  {
    path: "two-factor/regenerate",
    name: "backupCodesRegenerated",
    section: "two-factor",
    stepUp: true,
    async run(req) {
      const { backupCodes } = await req.account.regenerateBackupCodes(text(req.body.code, 64))
      return { json: { backupCodes }, page: await backupCodesPage(req, backupCodes) }
    },
  },
  {
    path: "sessions/:id/revoke",
    name: "sessionRevoked",
    section: "sessions",
    async run(req) {
      // Another user's id, an unknown one and this session's own all revoke nothing: one answer.
      if (!(await req.account.revokeSession(req.params.id!))) throw new ExtensionRequestError("not-found", "No such session", 404)
      return { json: { revoked: 1 }, notice: "revoked" }
    },
  },
  {
    path: "sessions/revoke-others",
    name: "otherSessionsRevoked",
    section: "sessions",
    stepUp: true,
    async run(req) {
      const revoked = await req.account.revokeOtherSessions()
      return { json: { revoked }, notice: "revokedOthers", values: { count: String(revoked) } }
    },
  },
  {
    path: "delete",
    name: "deleted",
    section: "delete",
    stepUp: true,
    async run(req) {
      // A deliberate word, so a stray click or a replayed request without it deletes nothing.
      if (text(req.body.confirm, 64).trim().toUpperCase() !== "DELETE") throw new ExtensionRequestError("confirm-delete", "Type DELETE to confirm", 422)
      await req.account.deleteAccount()
      return { json: { deleted: true }, page: deletedPage(req) }
    },
  },
]

/** Runs `action`: the audit event either way, and the answer in the form the caller asked for. */
async function perform(action: Action, req: Request): Promise<ExtensionResponse> {
  const session = await req.requireSession()
  const form = isForm(req)
  try {
    const done = await action.run(req, session.userId)
    await req.audit({ type: action.name, outcome: "success", userId: session.userId })
    if (!form) return { json: done.json }
    if (done.page) return done.page
    return back(req, action.section, { ...(done.notice && { notice: done.notice }), ...(done.values && { values: done.values }) })
  } catch (error) {
    const type = (error as { type?: string }).type
    if (!type || !CLIENT_ERRORS.has(type)) throw error
    const code = (error as { code?: string }).code ?? type
    await req.audit({ type: action.name, outcome: "failure", userId: session.userId, reason: code })
    if (!form) throw error
    return back(req, action.section, { problem: code })
  }
}

/** The action routes. */
export const actionRoutes: ExtensionRoute<AccountLocals>[] = ACTIONS.map((action) => ({
  method: "POST" as const,
  path: action.path,
  ...(action.stepUp && { stepUp: true }),
  ...(action.rateLimit && { rateLimit: action.rateLimit }),
  handler: (req: Request) => perform(action, req),
}))

/** `GET email/confirm`: the mailed link opens a page with a button, so a mail scanner's visit spends nothing. */
export const confirmRoute: ExtensionRoute<AccountLocals> = {
  method: "GET",
  path: "email/confirm",
  answers: "page",
  handler: (req: Request) => emailConfirmPage(req),
}
