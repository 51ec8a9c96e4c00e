import { resetTwoFactor as coreResetTwoFactor, type TwoFactorResetInput, type TwoFactorResetResult } from "@portcullis/core/integration"
import { appFor, type NextAuthConfigInput } from "./config.js"

/**
 * Account recovery for a user who lost their authenticator and backup codes (docs/two-factor.md,
 * "Lost your authenticator"): removes their two-factor record, ends all their sessions, fires
 * `twoFactorReset` with `reason` and `actor`, and mails them a notice. For support staff, on
 * the app's runtime; it reads no request and trusts `userId`, so check the caller's rights
 * first.
 *
 * @example
 * ```ts
 * // app/admin/users/[id]/actions.ts
 * "use server"
 * import { resetTwoFactor } from "@/auth"
 *
 * export async function reset(userId: string, reason: string) {
 *   const staff = await requireSupportStaff()
 *   return resetTwoFactor({ userId, reason, actor: staff.id })
 * }
 * ```
 */
export type ResetTwoFactor = (input: TwoFactorResetInput) => Promise<TwoFactorResetResult>

export function createResetTwoFactor(input: NextAuthConfigInput): ResetTwoFactor {
  return async (reset) => coreResetTwoFactor(reset, (await appFor(input, undefined)).runtime)
}
