/**
 * The account center's server functions (`extensions.account.*`), for apps that build their
 * own UI: each acts on the signed-in user of the request, through core's own operations.
 * Sensitive ones need a recent re-authentication (`StepUpRequired` otherwise).
 * @module
 */
import type { AccountEnrollment, AccountPasskey, AccountSession, AccountTwoFactor, AccountUser, AccountWaysIn, ExtensionTools } from "@portcullis/core/extension"
import type { AccountLocals } from "./options.js"
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

/** The server functions of the account center. */
export interface AccountServer {
  state(): Promise<AccountState>
  updateProfile(patch: { name?: string | null; image?: string | null }): Promise<AccountUser>
  unlink(provider: string): Promise<void>
  renamePasskey(id: string, name: string): Promise<void>
  removePasskey(id: string): Promise<void>
  revokeSession(id: string): Promise<boolean>
  revokeOtherSessions(): Promise<number>
  deleteAccount(): Promise<void>
}

type Call = ExtensionTools & { locals: AccountLocals }

export function accountServer(call: Call): AccountServer {
  const { account } = call
  const step = () => call.requireSession({ stepUp: true })
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
      const enrollment = twoFactor.pending ? await account.pendingTwoFactor() : null
      const located = sessions && (await Promise.all(sessions.map(async (s) => ({ ...s, device: parseUserAgent(s.userAgent), place: await locate(call.locals, s.ipAddress) }))))
      return { user, waysIn, passkeys, password, twoFactor: { ...twoFactor, enrollment }, sessions: located }
    },
    updateProfile: async (patch) => (await call.requireSession(), account.updateProfile(patch)),
    unlink: async (provider) => (await step(), account.unlink(provider)),
    renamePasskey: async (id, name) => (await call.requireSession(), account.renamePasskey(id, name)),
    removePasskey: async (id) => (await step(), account.removePasskey(id)),
    revokeSession: async (id) => (await call.requireSession(), account.revokeSession(id)),
    revokeOtherSessions: async () => (await step(), account.revokeOtherSessions()),
    deleteAccount: async () => (await step(), account.deleteAccount()),
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
