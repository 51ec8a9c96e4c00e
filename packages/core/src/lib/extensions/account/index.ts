/**
 * The account facet (`ExtensionTools.account`, typed in `../account-api.ts`), built on a
 * request's context. Loaded with `import()` on the first call of any of its methods.
 * @module
 */
import type { RequestContext } from "../../context.js"
import type { AccountApi } from "../account-api.js"
import { signedIn } from "./signed-in.js"
import { deleteAccount, me, updateProfile } from "./profile.js"
import { passkeys, removePasskey, renamePasskey, unlink, waysIn } from "./ways.js"
import { changePassword, passwordState, setPassword } from "./password.js"
import * as twoFactor from "./two-factor.js"
import * as sessions from "./sessions.js"
import { confirmChange, requestChange } from "./email.js"

export function accountApi(ctx: RequestContext): AccountApi {
  return {
    user: () => me(ctx),
    updateProfile: (patch) => updateProfile(ctx, patch),
    waysIn: async () => {
      const { user, adapter } = await signedIn(ctx)
      return waysIn(ctx, user, adapter)
    },
    unlink: (provider) => unlink(ctx, provider),
    passkeys: () => passkeys(ctx),
    renamePasskey: (id, name) => renamePasskey(ctx, id, name),
    removePasskey: (id) => removePasskey(ctx, id),
    password: () => passwordState(ctx),
    setPassword: (password) => setPassword(ctx, password),
    changePassword: (current, next) => changePassword(ctx, current, next),
    twoFactor: () => twoFactor.status(ctx),
    startTwoFactor: () => twoFactor.start(ctx),
    pendingTwoFactor: () => twoFactor.pending(ctx),
    confirmTwoFactor: (code) => twoFactor.confirm(ctx, code),
    disableTwoFactor: (code) => twoFactor.turnOff(ctx, code),
    regenerateBackupCodes: (code) => twoFactor.regenerate(ctx, code),
    sessions: () => sessions.list(ctx),
    revokeSession: (id) => sessions.revoke(ctx, id),
    revokeOtherSessions: () => sessions.revokeOthers(ctx),
    requestEmailChange: (email, maxAge) => requestChange(ctx, email, maxAge),
    confirmEmailChange: (email, token) => confirmChange(ctx, email, token),
    deleteAccount: () => deleteAccount(ctx),
  }
}
