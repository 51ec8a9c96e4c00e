/**
 * The account center's server functions (`extensions.account.*`), for apps that build their
 * own UI: each acts on the signed-in user of the request, through core's own operations.
 * Sensitive ones need a recent re-authentication (`StepUpRequired` otherwise).
 * @module
 */
import { StepUpRequired, type AccountEnrollment, type AccountPasskey, type AccountSession, type AccountTwoFactor, type AccountUser, type AccountWaysIn, type ExtensionTools } from "@portcullis/core/extension"
import type { AccountLocals } from "./options.js"
import { requestEmailChange } from "./email.js"
import { parseUserAgent, type Device } from "./user-agent.js"

/** Everything the page shows, as JSON (`GET <basePath>/account/state`). */
export interface AccountState {
  user: AccountUser
  waysIn: AccountWaysIn
  passkeys: AccountPasskey[]
  password: { available: boolean; set: boolean }
  twoFactor: AccountTwoFactor & { enrollment: AccountEnrollment | null }
  /** `null` when sessions cannot be listed (JWT sessions without a registry). */
  sessions: Array<AccountSession & { device: Device; place: string | null }> | null
}

/**
 * The server functions of the account center: one per action of the page, each on the
 * request's own user, each emitting the route's audit event (`account.<name>`). Those marked
 * step-up throw `StepUpRequired` without a recent re-authentication.
 */
export interface AccountServer {
  state(): Promise<AccountState>
  updateProfile(patch: { name?: string | null; image?: string | null }): Promise<AccountUser>
  /** Step-up. Mails the link (or, for a taken address, a note) to `email`. */
  requestEmailChange(email: string): Promise<void>
  /** `false` when the token is unknown, spent, expired or another user's. */
  confirmEmailChange(email: string, token: string): Promise<boolean>
  /** Step-up. */
  unlink(provider: string): Promise<void>
  renamePasskey(id: string, name: string): Promise<void>
  /** Step-up. */
  removePasskey(id: string): Promise<void>
  /** Step-up. */
  setPassword(password: string): Promise<void>
  changePassword(currentPassword: string, password: string): Promise<void>
  /** Step-up. */
  startTwoFactor(): Promise<AccountEnrollment>
  /** Step-up. */
  confirmTwoFactor(code: string): Promise<{ backupCodes: string[] }>
  /** Step-up. */
  disableTwoFactor(code: string): Promise<void>
  /** Step-up. */
  regenerateBackupCodes(code: string): Promise<{ backupCodes: string[] }>
  revokeSession(id: string): Promise<boolean>
  /** Step-up. */
  revokeOtherSessions(): Promise<number>
  /** Step-up. */
  deleteAccount(): Promise<void>
}

type Call = ExtensionTools & { locals: AccountLocals }

export function accountServer(call: Call): AccountServer {
  const { account } = call
  return {
    async state() {
      await call.requireSession()
      const [user, waysIn, passkeys, password, twoFactor, sessions] = await Promise.all([
        account.user(),
        account.waysIn(),
        account.passkeys(),
        account.password(),
        account.twoFactor(),
        account.sessions().catch(() => null),
      ])
      // The pending secret becomes the second factor once confirmed: only a session that
      // re-authenticated recently reads it (as the page shows it), never a stolen cookie alone.
      const enrollment = twoFactor.pending && (await steppedUp(call)) ? await account.pendingTwoFactor() : null
      const located = sessions && (await Promise.all(sessions.map(async (s) => ({ ...s, device: parseUserAgent(s.userAgent), place: await locate(call.locals, s.ipAddress) }))))
      return { user, waysIn, passkeys, password, twoFactor: { ...twoFactor, enrollment }, sessions: located }
    },
    updateProfile: (patch) => audited("profileUpdated", false, () => account.updateProfile(patch)),
    requestEmailChange: (email) =>
      audited("emailChangeRequested", true, async (userId) => {
        // The route's counter (its limit is named after it): five mails an hour, however sent.
        await call.rateLimit("POST email", { max: 5, window: 3600 }, userId)
        await requestEmailChange(call, userId, email)
      }),
    confirmEmailChange: (email, token) => audited("emailChanged", false, async () => !!(await account.confirmEmailChange(email, token))),
    unlink: (provider) => audited("accountUnlinked", true, () => account.unlink(provider)),
    renamePasskey: (id, name) => audited("passkeyRenamed", false, () => account.renamePasskey(id, name)),
    removePasskey: (id) => audited("passkeyRemoved", true, () => account.removePasskey(id)),
    setPassword: (password) => audited("passwordSet", true, () => account.setPassword(password)),
    changePassword: (current, password) => audited("passwordChanged", false, () => account.changePassword(current, password)),
    startTwoFactor: () => audited("twoFactorStarted", true, () => account.startTwoFactor()),
    confirmTwoFactor: (code) => audited("twoFactorEnabled", true, () => account.confirmTwoFactor(code)),
    disableTwoFactor: (code) => audited("twoFactorDisabled", true, () => account.disableTwoFactor(code)),
    regenerateBackupCodes: (code) => audited("backupCodesRegenerated", true, () => account.regenerateBackupCodes(code)),
    revokeSession: (id) => audited("sessionRevoked", false, () => account.revokeSession(id)),
    revokeOtherSessions: () => audited("otherSessionsRevoked", true, () => account.revokeOtherSessions()),
    deleteAccount: () => audited("deleted", true, () => account.deleteAccount()),
  }

  /** Runs `work` for the signed-in (and, with `sensitive`, stepped-up) user and audits it either way. */
  async function audited<T>(name: string, sensitive: boolean, work: (userId: string) => Promise<T>): Promise<T> {
    const session = await call.requireSession(sensitive ? { stepUp: true } : undefined)
    try {
      const result = await work(session.userId)
      await call.audit({ type: name, outcome: "success", userId: session.userId })
      return result
    } catch (error) {
      const type = (error as { type?: string }).type
      // A refusal of the caller's making is recorded; an outage is the store's to report.
      if (type && type !== "ServiceUnavailable" && type !== "AdapterError") await call.audit({ type: name, outcome: "failure", userId: session.userId, reason: (error as { code?: string }).code ?? type })
      throw error
    }
  }
}

async function locate(locals: AccountLocals, ip: string | null): Promise<string | null> {
  if (!locals.locate || !ip) return null
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), 1000)))
    const found = await Promise.race([Promise.resolve().then(() => locals.locate!(ip)), late])
    return typeof found === "string" && found ? found.slice(0, 200) : null
  } catch {
    return null
  } finally {
    clearTimeout(timer)
  }
}

/** Whether the call's session re-authenticated recently (`StepUpRequired` is a no, anything else an error). */
async function steppedUp(call: Call): Promise<boolean> {
  try {
    await call.requireSession({ stepUp: true })
    return true
  } catch (error) {
    if (error instanceof StepUpRequired) return false
    throw error
  }
}
