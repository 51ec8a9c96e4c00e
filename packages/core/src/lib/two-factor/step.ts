/**
 * Whether a finished first factor needs the second: called by `establishSession` before any
 * session exists. For a user with two-factor authentication on it answers the redirect to
 * `<basePath>/two-factor` with the sealed challenge; otherwise nothing, and the session is
 * issued as usual.
 * @module
 */
import type { ResponseInternal } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import { resolveCallbackUrl } from "../context.js"
import type { SignInResult } from "../session/index.js"
import { rememberedDevice, sealChallenge } from "./challenge.js"

export async function secondFactorChallenge(ctx: RequestContext, result: SignInResult): Promise<ResponseInternal | undefined> {
  const settings = ctx.config.twoFactor
  const userId = result.user.id
  if (!settings || typeof userId !== "string" || !userId) return undefined
  const provider = result.account?.provider ?? ctx.providerId
  const providerType = provider === undefined ? undefined : ctx.config.providerById.get(provider)?.type
  if (settings.passkeySkips && providerType === "webauthn") return undefined
  // A store that fails here fails the sign-in (AdapterError): no session without the answer.
  const record = await settings.store.getTwoFactor(userId)
  if (!record?.enabled) return undefined
  if (settings.rememberDevice > 0 && (await rememberedDevice(ctx, userId, record.secret))) {
    // Stryker disable next-line StringLiteral,ObjectLiteral,CallExpression: a debug log line only — no answer, cookie or stored state depends on it
    ctx.config.logger.debug("two_factor_device_remembered", { userId })
    return undefined
  }
  const callbackUrl = await resolveCallbackUrl(ctx)
  const { cookies, id, until } = await sealChallenge(ctx, { userId, provider, callbackUrl, result })
  // Recorded before the cookie leaves: a challenge the store never saw could not be spent,
  // and a store that fails here fails the sign-in (no session, no challenge).
  await settings.ledger.issue({ id, userId, until })
  // Stryker disable next-line StringLiteral,ObjectLiteral,CallExpression: a debug log line only — no answer, cookie or stored state depends on it
  ctx.config.logger.debug("two_factor_challenge", { userId, provider })
  return { redirect: `${ctx.authUrl}/two-factor`, cookies }
}
