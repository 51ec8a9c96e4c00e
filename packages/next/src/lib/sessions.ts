import type { SessionInfo } from "@portcullis/core"
import { sessionManager, type CookieSink, type SessionManager, type StepUpStatus, type TotpEnrollment, type TwoFactorStatus } from "@portcullis/core/integration"
import { cookies as nextCookies, headers as nextHeaders } from "next/headers"
import { appFor, onServer, type NextAuthConfigInput } from "./config.js"
import { actionURL } from "./session.js"

/**
 * Session management for Server Components (`list`) and Server Actions (the rest), on the
 * app's runtime (`docs/sessions.md`). Changes skip core's double-submit token as the other
 * server actions do: Next accepts Server Action POSTs from the app's own origin only.
 */
export interface SessionManagement {
  /** The signed-in user's sessions, this request's first (`current: true`). */
  list(): Promise<SessionInfo[]>
  /** Revokes one of the signed-in user's sessions by its listed id; `false` when none of theirs has it. */
  revoke(id: string): Promise<boolean>
  /** Revokes every session of the signed-in user but this one; returns how many. */
  revokeOthers(): Promise<number>
  /** Revokes every session of the signed-in user, this one too (its cookie is cleared); returns how many. Needs a step-up. */
  signOutEverywhere(): Promise<number>
  /** Whether this session stepped up recently (docs/step-up.md), and until when. */
  stepUpStatus(): Promise<StepUpStatus>
  /** The signed-in user when this session stepped up recently; `StepUpRequired` otherwise: the gate for your own sensitive actions. */
  requireStepUp(): Promise<{ userId: string }>
  /** The built-in re-authentication page, coming back to `callbackUrl`. */
  reauthenticateUrl(callbackUrl: string): Promise<string>
  /** Two-factor enrollment of the signed-in user (docs/two-factor.md); the changes need a step-up. */
  twoFactor: {
    status(): Promise<TwoFactorStatus>
    start(account?: string): Promise<TotpEnrollment>
    confirm(code: string): Promise<{ backupCodes: string[] }>
    disable(code: string): Promise<void>
    regenerateBackupCodes(code: string): Promise<{ backupCodes: string[] }>
  }
}

export function createSessionManagement(input: NextAuthConfigInput): SessionManagement {
  /**
   * Core's manager for this request; given no `csrfToken`, its changes skip the token check.
   * The cookie jar is opened only for the calls that may clear the session cookie.
   */
  async function manager(clearsCookie = false): Promise<SessionManager> {
    const [app, incoming] = await Promise.all([appFor(input, undefined), nextHeaders()])
    const headers = new Headers(incoming)
    const origin = actionURL("session", headers, app.config).origin
    let sink: CookieSink | undefined
    if (clearsCookie) {
      const jar = await nextCookies()
      sink = ({ name, value, options }) => void jar.set(name, value, options)
    }
    return sessionManager(origin, headers, app.runtime, sink)
  }
  return {
    async list() {
      const m = await manager()
      return onServer(() => m.list())
    },
    async revoke(id) {
      const m = await manager(true)
      return onServer(() => m.revoke(id))
    },
    async revokeOthers() {
      const m = await manager()
      return onServer(() => m.revokeOthers())
    },
    async signOutEverywhere() {
      const m = await manager(true)
      return onServer(() => m.signOutEverywhere())
    },
    async stepUpStatus() {
      const m = await manager()
      return onServer(() => m.stepUpStatus())
    },
    async requireStepUp() {
      const m = await manager()
      return onServer(() => m.requireStepUp())
    },
    async reauthenticateUrl(callbackUrl) {
      return (await manager()).reauthenticateUrl(callbackUrl)
    },
    twoFactor: {
      async status() {
        const m = await manager()
        return onServer(() => m.twoFactor.status())
      },
      async start(account) {
        const m = await manager()
        return onServer(() => m.twoFactor.start(undefined, account))
      },
      async confirm(code) {
        const m = await manager()
        return onServer(() => m.twoFactor.confirm(code))
      },
      async disable(code) {
        const m = await manager()
        return onServer(() => m.twoFactor.disable(code))
      },
      async regenerateBackupCodes(code) {
        const m = await manager()
        return onServer(() => m.twoFactor.regenerateBackupCodes(code))
      },
    },
  }
}
