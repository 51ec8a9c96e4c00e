/**
 * `<basePath>/reauthenticate`: step-up re-authentication (docs/step-up.md). `GET` shows the
 * ways to prove a first factor again; `POST` (CSRF-checked) takes the session user's
 * password, counted by the sign-in's own limits and lockout (same identifier), and marks
 * this session fresh for `stepUp.maxAge`. A fresh sign-in marks its new session as well, so
 * the page's "sign in again" covers every other provider (passkey, magic link, OAuth).
 *
 * parse → check (CSRF, session, limits, password) → act (the mark) → respond (back to `callbackUrl`).
 * @module
 */
import { RateLimited } from "../../errors.js"
import type { ResponseInternal } from "../../base-types.js"
import type { PasswordConfig } from "../password/provider-types.js"
import { resolveCallbackUrl, type RequestContext } from "../context.js"
import { verifyCsrf } from "../csrf.js"
import { store } from "../config/stores.js"
import { pageHeaders } from "../http/response.js"
import { renderReauthenticate } from "../pages/reauthenticate.js"
import { normaliseIdentifier } from "../rate-limit/limiter.js"
import { markFresh } from "../step-up/marks.js"
import { currentSession, type StepUpSession } from "../step-up/session.js"
import { twoFactorOn } from "../two-factor/enabled.js"
import { audit } from "../audit/index.js"
import { pageBase } from "./page-base.js"
import { passwordTools } from "../kinds/index.js"

export async function reauthenticate(ctx: RequestContext): Promise<ResponseInternal> {
  const callbackUrl = await resolveCallbackUrl(ctx)
  if (ctx.method === "POST") await verifyCsrf(ctx)
  const session = await currentSession(ctx)
  // Signed out (or a session from before step-up, which has no id to mark): a sign-in is
  // the way back, and it marks the new session.
  if (!session?.id) return { redirect: signInUrl(ctx, callbackUrl) }
  return ctx.method === "POST" ? withPassword(ctx, session, callbackUrl) : page(ctx, session, callbackUrl)
}

function passwordProvider(ctx: RequestContext): PasswordConfig | undefined {
  return ctx.config.providers.find((p): p is PasswordConfig => p.type === "password")
}

async function page(ctx: RequestContext, session: StepUpSession, callbackUrl: string): Promise<ResponseInternal> {
  const provider = passwordProvider(ctx)
  // Offered only to users who have a password (others would type into a form that can only
  // refuse) and no second factor: theirs is a sign-in again, code included.
  const password = !!provider && !!(await store(ctx.config.stores, "password").getUserPassword(session.userId)) && !(await twoFactorOn(ctx.config, session.userId))
  const error = ctx.query.error
  const html = renderReauthenticate({
    ...(await pageBase(ctx)),
    callbackUrl,
    password,
    signInUrl: signInUrl(ctx, callbackUrl),
    error: error === "PasswordMismatch" || error === "RateLimited" ? error : undefined,
  })
  return { status: 200, headers: pageHeaders, body: html }
}

/** `POST`: the session user's current password. */
async function withPassword(ctx: RequestContext, session: StepUpSession, callbackUrl: string): Promise<ResponseInternal> {
  const provider = passwordProvider(ctx)
  if (!provider) return { redirect: signInUrl(ctx, callbackUrl) }
  const adapter = store(ctx.config.stores, "password")
  const user = session.user ?? (await adapter.getUser(session.userId))
  if (!user) return { redirect: signInUrl(ctx, callbackUrl) }
  // With 2FA on, the password alone proves less than a sign-in (which asks for the code):
  // to the sign-in, before the password is even looked at.
  if (await twoFactorOn(ctx.config, user.id)) return { redirect: signInUrl(ctx, callbackUrl) }
  const limiter = ctx.config.rateLimit
  // The sign-in's counters: guesses here, at sign-in and at a password change add up to one lockout.
  const identifier = normaliseIdentifier(user.email)
  try {
    await limiter?.checkAddress("credentials", ctx.clientAddress)
    await limiter?.checkCredentials(identifier, ctx.clientAddress)
  } catch (error) {
    if (error instanceof RateLimited) return { redirect: pageUrl(ctx, callbackUrl, "RateLimited") }
    throw error
  }
  const stored = await adapter.getUserPassword(user.id)
  const given = typeof ctx.body?.password === "string" ? ctx.body.password : ""
  if (!stored || !(await (await passwordTools(ctx.config.kinds)).verifyPassword(given, stored, provider.hashing))) {
    ctx.config.logger.debug("step_up_password_refused", { userId: user.id })
    await audit(ctx, { type: "stepUp", outcome: "failure", userId: user.id, method: "password", reason: "PasswordMismatch" })
    return { redirect: pageUrl(ctx, callbackUrl, "PasswordMismatch") }
  }
  await limiter?.credentialsSucceeded(identifier)
  await markFresh(ctx.config, session)
  ctx.config.logger.debug("step_up_passed", { userId: user.id, way: "password" })
  await audit(ctx, { type: "stepUp", outcome: "success", userId: user.id, method: "password" })
  return { redirect: callbackUrl }
}

function pageUrl(ctx: RequestContext, callbackUrl: string, error: string): string {
  const url = new URL(`${ctx.authUrl}/reauthenticate`)
  url.searchParams.set("callbackUrl", callbackUrl)
  url.searchParams.set("error", error)
  return url.href
}

function signInUrl(ctx: RequestContext, callbackUrl: string): string {
  const url = new URL(ctx.config.pages.signIn ?? `${ctx.config.basePath}/signin`, ctx.origin)
  url.searchParams.set("callbackUrl", callbackUrl)
  return url.href
}
