/**
 * The password: set a first one (the route is stepped up) or change it with the current
 * one — core's policy, strength and breached checks, and the other sessions end before the
 * new hash is stored, as core's own change does (`actions/password.ts`).
 * @module
 */
import type { Adapter, AdapterUser } from "../../../adapters.js"
import { PasswordRejected } from "../../../errors.js"
import type { PasswordConfig } from "../../password/provider-types.js"
import type { RequestContext } from "../../context.js"
import { passwordTools } from "../../kinds/index.js"
import { checkNewPassword } from "../../password-flows/policy.js"
import { revokeOtherSessions } from "../../password-flows/revoke.js"
import { normaliseIdentifier } from "../../rate-limit/limiter.js"
import { notify } from "../../notify/index.js"
import { ExtensionRequestError } from "../errors.js"
import { signedIn, unsupported } from "./signed-in.js"

function providerOf(ctx: RequestContext): PasswordConfig | undefined {
  return ctx.config.providers.find((p): p is PasswordConfig => p.type === "password")
}

export async function passwordState(ctx: RequestContext): Promise<{ available: boolean; set: boolean }> {
  const { user, adapter } = await signedIn(ctx)
  const available = !!providerOf(ctx) && !!adapter.getUserPassword && !!adapter.setUserPassword
  return { available, set: available && !!(await adapter.getUserPassword!(user.id)) }
}

async function store(ctx: RequestContext, user: AdapterUser, adapter: Adapter, provider: PasswordConfig, next: unknown): Promise<void> {
  if (!user.email) throw new ExtensionRequestError("no-email", "A password needs an email address on the account", 409)
  const password = await checkNewPassword(provider, ctx.config.passwordStrength, next, user.email, ctx.config.telemetry)
  const tools = await passwordTools(ctx.config.kinds)
  const hash = await tools.hashPassword(password, provider.hashing)
  // As core's change: if ending the other sessions fails, nothing changed.
  await revokeOtherSessions(ctx)
  await adapter.setUserPassword!(user.id, hash)
  await notify(ctx, user, "passwordChanged")
}

export async function setPassword(ctx: RequestContext, next: unknown): Promise<void> {
  const { user, adapter } = await signedIn(ctx)
  const provider = providerOf(ctx)
  if (!provider || !adapter.getUserPassword || !adapter.setUserPassword) throw unsupported("password provider")
  if (await adapter.getUserPassword(user.id)) throw new ExtensionRequestError("password-set", "A password is set already; change it with the current one", 409)
  await store(ctx, user, adapter, provider, next)
}

export async function changePassword(ctx: RequestContext, current: unknown, next: unknown): Promise<void> {
  const { user, adapter } = await signedIn(ctx)
  const provider = providerOf(ctx)
  if (!provider || !adapter.getUserPassword || !adapter.setUserPassword) throw unsupported("password provider")
  const limiter = ctx.config.rateLimit
  // The sign-in's counters: guesses at the current password here and there add up.
  const identifier = normaliseIdentifier(user.email)
  await limiter?.checkAddress("credentials", ctx.clientAddress)
  await limiter?.checkCredentials(identifier, ctx.clientAddress)
  const stored = await adapter.getUserPassword(user.id)
  const tools = await passwordTools(ctx.config.kinds)
  const given = typeof current === "string" && current.length <= 4096 ? current : ""
  if (!stored || !(await tools.verifyPassword(given, stored, provider.hashing))) throw new PasswordRejected("PasswordMismatch", "The current password is wrong")
  await limiter?.credentialsSucceeded(identifier)
  await store(ctx, user, adapter, provider, next)
}
