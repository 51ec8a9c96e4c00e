import { InvalidProvider, PasswordRejected, UnknownAction } from "../../errors.js"
import type { AdapterUser } from "../../adapters.js"
import type { ResponseInternal } from "../../base-types.js"
import type { PasswordConfig } from "../password/provider-types.js"
import { resolveCallbackUrl, type RequestContext } from "../context.js"
import { verifyCsrf } from "../csrf.js"
import { readChunked } from "../cookies.js"
import { store, type StoreFor } from "../config/stores.js"
import { normalizeEmail } from "../email/normalize.js"
import { pageHeaders } from "../http/response.js"
import { pageBase } from "./page-base.js"
import { admitSignIn, createUserOnce, updateUser } from "../login.js"
import { replaceUnverifiedUser } from "../first-verification.js"
import { requireTrustedOrigin } from "../origin-trust.js"
import { normaliseIdentifier } from "../rate-limit/limiter.js"
import { renderPasswordPage, type PasswordPage } from "../pages/password.js"
import { checkNewPassword, minLengthOf } from "../password-flows/policy.js"
import { issueAndMailInBackground, mailerOf, mailInBackground } from "../password-flows/mail.js"
import { revokeAllSessions, revokeOtherSessions } from "../password-flows/revoke.js"
import { notify } from "../notify/index.js"
import { audit } from "../audit/index.js"
import { consumeToken, issueToken, readLink } from "../password-flows/tokens.js"
import { pastAbsoluteLifetime, storageKey } from "../session/database.js"
import { openToken, stillValid } from "../session/jwt.js"
import { markCurrentSession } from "../step-up/sign-in.js"
import { twoFactorOn } from "../two-factor/enabled.js"
import { passwordTools } from "../kinds/index.js"

/** Default lifetimes of the emailed links, in seconds. */
const VERIFICATION_MAX_AGE = 24 * 60 * 60
const RESET_MAX_AGE = 30 * 60

/**
 * `<basePath>/password/<step>`: the password provider's steps besides sign-in (which is
 * `POST /callback/password`). Every step has a page (GET) and a server API (POST, the same
 * form fields as JSON or url-encoded); errors in the input send the form back with
 * `?error=<code>`. Sign-up and forgot-password answer every address alike: the mail
 * differs, the response does not.
 */
export async function password(ctx: RequestContext): Promise<ResponseInternal> {
  const provider = ctx.config.providers.find((p): p is PasswordConfig => p.type === "password")
  if (!provider) throw new InvalidProvider("No password provider is configured")
  const step = ctx.providerId
  const post = ctx.method === "POST"
  switch (step) {
    case "signup":
      return post ? signUp(ctx, provider) : page(ctx, { step: "signup", callbackUrl: await resolveCallbackUrl(ctx), ...formQuery(ctx), minLength: minLengthOf(provider) })
    case "forgot":
      return post ? forgot(ctx, provider) : page(ctx, { step: "forgot", callbackUrl: await resolveCallbackUrl(ctx), ...formQuery(ctx) })
    case "reset":
      return post ? reset(ctx, provider) : resetPage(ctx, provider)
    case "verify":
      return post ? verify(ctx, provider) : verifyPage(ctx)
    case "change":
      if (!post) break
      return change(ctx, provider)
    case "verified":
      if (post) break
      // After a confirmation without the sign-up's password: the account is new and has none.
      return page(ctx, { step, passwordKept: ctx.query.password !== "none" })
    case "sent":
    case "done":
      if (post) break
      return page(ctx, { step })
  }
  throw new UnknownAction(`There is no password step ${JSON.stringify(step)} for ${ctx.method}`)
}

async function page(ctx: RequestContext, content: PasswordPage): Promise<ResponseInternal> {
  return { headers: pageHeaders, body: renderPasswordPage(await pageBase(ctx), content) }
}

/** `?error=` and `?email=` of a form page, bounded. */
function formQuery(ctx: RequestContext): { error?: string; email?: string } {
  const error = typeof ctx.query.error === "string" && /^\w{1,32}$/.test(ctx.query.error) ? ctx.query.error : undefined
  const email = typeof ctx.query.email === "string" ? ctx.query.email.slice(0, 320) : undefined
  return { ...(error && { error }), ...(email && { email }) }
}

function stepUrl(ctx: RequestContext, step: string, params: Record<string, string> = {}): string {
  const url = new URL(`${ctx.authUrl}/password/${step}`)
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
  return url.href
}

/** Runs a form step; a refusal of its input sends the form back with the reason. */
async function refusable(ctx: RequestContext, back: (code: string) => string, run: () => Promise<ResponseInternal>): Promise<ResponseInternal> {
  try {
    return await run()
  } catch (error) {
    if (!(error instanceof PasswordRejected)) throw error
    ctx.config.logger.debug("password_input_refused", { code: error.code })
    return { redirect: back(error.code) }
  }
}

function addressOf(input: unknown): string {
  try {
    return normalizeEmail(input)
  } catch {
    throw new PasswordRejected("InvalidEmail", "The submitted email address was refused")
  }
}

/**
 * `POST /password/signup` (`email`, `password`): a new address gets an unverified user, the
 * password and a verification link; an address that already has a user gets an email
 * saying so, with a reset link. Both hash the password and answer the same redirect to the
 * "check your email" page without waiting for the mailer. Concurrent sign-ups of one address make one user: the
 * others lose the insert and are answered as for an existing address. An address an
 * extension's sign-in gate refuses (a domain that requires SSO) is answered `AccountSuspended`,
 * known or not, and gets neither a user nor a mail.
 */
async function signUp(ctx: RequestContext, provider: PasswordConfig): Promise<ResponseInternal> {
  await verifyCsrf(ctx)
  requireTrustedOrigin(ctx, "Mailing a verification link")
  // Before any lookup: a missing sender must fail for every address alike.
  mailerOf(ctx, provider)
  const body = ctx.body ?? {}
  const callbackUrl = await resolveCallbackUrl(ctx)
  return refusable(ctx, (error) => stepUrl(ctx, "signup", { error, callbackUrl }), async () => {
    const limiter = ctx.config.rateLimit
    await limiter?.checkAddress("email", ctx.clientAddress)
    const email = addressOf(body.email)
    await limiter?.checkEmail(email, ctx.clientAddress, "password")
    // An address the extensions' gates refuse (a domain that requires SSO) gets no user and
    // no mail. Asked by the address alone, before the lookup, for known and unknown
    // addresses alike: the answer must not tell who has an account.
    await admitSignIn(ctx, { email, provider: provider.id })
    const password = await checkNewPassword(provider, ctx.config.passwordStrength, body.password, email, ctx.config.telemetry)
    // Hashed for every address, so a known one answers no faster.
    const hash = await (await passwordTools(ctx.config.kinds)).hashPassword(password, provider.hashing)
    const adapter = store(ctx.config.stores, "password")
    const existing = await adapter.getUserByEmail(email)
    const created = existing
      ? { user: existing, isNewUser: false }
      : await createUserOnce(ctx, { email, emailVerified: null, name: null, image: null }, () => adapter.getUserByEmail(email))
    if (created.isNewUser) {
      await adapter.setUserPassword(created.user.id, hash)
      const link = await issueToken(ctx, "verify", email, created.user, verificationMaxAgeOf(provider))
      const url = stepUrl(ctx, "verify", { token: link.token, email })
      mailInBackground(ctx, provider, "verifyEmail", { ...link, email, url })
    } else {
      await mailResetLink(ctx, provider, email, created.user, "existingAccount")
    }
    return { redirect: stepUrl(ctx, "sent") }
  })
}

function verificationMaxAgeOf(provider: PasswordConfig): number {
  return provider.verificationMaxAge ?? VERIFICATION_MAX_AGE
}

async function mailResetLink(ctx: RequestContext, provider: PasswordConfig, email: string, user: AdapterUser, kind: "existingAccount" | "resetEmail") {
  mailInBackground(ctx, provider, kind, await resetLink(ctx, provider, email, user))
}

/** A reset link for `user`, stored, with its URL. */
async function resetLink(ctx: RequestContext, provider: PasswordConfig, email: string, user: AdapterUser) {
  const link = await issueToken(ctx, "reset", email, user, provider.resetMaxAge ?? RESET_MAX_AGE)
  return { ...link, email, url: stepUrl(ctx, "reset", { token: link.token, email }) }
}

/**
 * `GET /password/verify?token&email`, the link in the email: a page whose button confirms,
 * with a field for the sign-up's password. It uses nothing — mail scanners and link
 * previews fetch every link, and a GET that verified would let them (or anyone the link
 * reaches) verify on the registrant's behalf.
 */
async function verifyPage(ctx: RequestContext): Promise<ResponseInternal> {
  const link = readLink(ctx.query)
  return page(ctx, { step: "verify", callbackUrl: await resolveCallbackUrl(ctx), ...link, host: new URL(ctx.origin).host })
}

/**
 * `POST /password/verify` (`token`, `email`, `password`, `csrfToken`), the confirm page's
 * button: uses the link once; it proves the address. The user is kept with its password only
 * when `password` is that password — whoever types it chose it, so the person confirming is
 * the one who signed up. Otherwise (empty or wrong) this is the address's first verification
 * by someone who may not be the registrant — the owner of the address, where someone else
 * signed up with it and a password of his choosing: the user is replaced (T67) with
 * everything it held, password and sessions included, and the owner chooses a password
 * through "forgot password". The browser proves nothing here: on a shared computer the one
 * that signed up is also the owner's.
 */
async function verify(ctx: RequestContext, provider: PasswordConfig): Promise<ResponseInternal> {
  await verifyCsrf(ctx)
  const body = ctx.body ?? {}
  const link = readLink(body)
  const typed = typeof body.password === "string" ? body.password : ""
  // A typed password is a guess like a sign-in's and counts on its counter, before the link
  // is used: a refused confirmation leaves the link for a later one. One link takes one
  // guess (it is spent either way, and a wrong one deletes the hash it was checked against).
  const identifier = typed ? normaliseIdentifier(link.email) : undefined
  if (identifier) {
    await ctx.config.rateLimit?.checkAddress("credentials", ctx.clientAddress)
    await ctx.config.rateLimit?.checkCredentials(identifier, ctx.clientAddress)
  }
  const { user } = await consumeToken(ctx, "verify", link)
  // A link in an earlier row form, used after the address was verified: nothing left to do.
  if (user.emailVerified) return { redirect: stepUrl(ctx, "verified") }
  const adapter = store(ctx.config.stores, "password")
  if (typed && (await (await passwordTools(ctx.config.kinds)).verifyPassword(typed, await adapter.getUserPassword(user.id), provider.hashing))) {
    await ctx.config.rateLimit?.credentialsSucceeded(identifier)
    await updateUser(ctx, adapter, { id: user.id, emailVerified: new Date() })
    await audit(ctx, { type: "emailVerified", outcome: "success", userId: user.id })
    return { redirect: stepUrl(ctx, "verified") }
  }
  if (typed) ctx.config.logger.debug("password_verify_wrong_password", { userId: user.id })
  // A fresh user is about to replace this one: the gates first, with the replaced user's id
  // (a ban of it must not be shed by verifying the address), so a refusal replaces nothing.
  await admitSignIn(ctx, { userId: user.id, email: link.email, provider: provider.id })
  // Sessions first, while the registry still knows them under this user's id.
  await revokeAllSessions(ctx, user.id)
  await replaceUnverifiedUser(ctx, user, { email: link.email, name: null, image: null })
  return { redirect: stepUrl(ctx, "verified", { password: "none" }) }
}

/**
 * `POST /password/forgot` (`email`): mails a reset link when the address has a user, and
 * nothing otherwise; the answer is the same redirect either way, and does not wait for the
 * mailer (whose round trip only known addresses would pay).
 */
async function forgot(ctx: RequestContext, provider: PasswordConfig): Promise<ResponseInternal> {
  await verifyCsrf(ctx)
  requireTrustedOrigin(ctx, "Mailing a password reset link")
  // Before the lookup: an unknown address sends nothing, and must not be the only one that works.
  mailerOf(ctx, provider)
  const callbackUrl = await resolveCallbackUrl(ctx)
  return refusable(ctx, (error) => stepUrl(ctx, "forgot", { error, callbackUrl }), async () => {
    const limiter = ctx.config.rateLimit
    await limiter?.checkAddress("email", ctx.clientAddress)
    const email = addressOf(ctx.body?.email)
    await limiter?.checkEmail(email, ctx.clientAddress, "password")
    const user = await store(ctx.config.stores, "password").getUserByEmail(email)
    // Stored and mailed after the answer: the lookup is all an unknown address costs too.
    if (user) issueAndMailInBackground(ctx, provider, "resetEmail", () => resetLink(ctx, provider, email, user))
    return { redirect: stepUrl(ctx, "sent") }
  })
}

/** `GET /password/reset?token&email`: the form; the token is checked (and used) only on POST. */
async function resetPage(ctx: RequestContext, provider: PasswordConfig): Promise<ResponseInternal> {
  const link = readLink(ctx.query)
  const { error } = formQuery(ctx)
  return page(ctx, { step: "reset", callbackUrl: await resolveCallbackUrl(ctx), ...link, ...(error && { error }), minLength: minLengthOf(provider) })
}

/**
 * `POST /password/reset` (`token`, `email`, `password`): checks the new password first (a
 * refused one keeps the link usable), then uses the token — once — stores the new hash,
 * marks the address verified (the link proved it) and ends every session of the user.
 */
async function reset(ctx: RequestContext, provider: PasswordConfig): Promise<ResponseInternal> {
  await verifyCsrf(ctx)
  const body = ctx.body ?? {}
  const link = readLink(body)
  const callbackUrl = await resolveCallbackUrl(ctx)
  return refusable(ctx, (error) => stepUrl(ctx, "reset", { ...link, error, callbackUrl }), async () => {
    const password = await checkNewPassword(provider, ctx.config.passwordStrength, body.password, link.email, ctx.config.telemetry)
    // Bound to the password as it is now: once one link is used (or the password changed), no earlier one works.
    const { user } = await consumeToken(ctx, "reset", link)
    const email = link.email
    const adapter = store(ctx.config.stores, "password")
    const hash = await (await passwordTools(ctx.config.kinds)).hashPassword(password, provider.hashing)
    // An unverified user is replaced below: the gates first, with its id (as a verification link's).
    if (!user.emailVerified) await admitSignIn(ctx, { userId: user.id, email, provider: provider.id })
    // Sessions first, while the registry still knows them under this user's id.
    await revokeAllSessions(ctx, user.id)
    // An unverified user was made by whoever typed the address first — perhaps not the
    // owner, who only now proves it: that user is replaced, not adopted, so nothing the
    // earlier registrant attached (accounts, passkeys, sessions) survives (T67).
    const owner = user.emailVerified ? user : (await replaceUnverifiedUser(ctx, user, { email, name: null, image: null })).user
    await adapter.setUserPassword(owner.id, hash)
    await notify(ctx, owner, "passwordReset")
    return { redirect: stepUrl(ctx, "done") }
  })
}

/**
 * `POST /password/change` (`currentPassword`, `password`), signed in: the current password
 * must be right (and is rate limited like a sign-in); then the user's other sessions end and
 * the new hash is stored. This session stays.
 */
async function change(ctx: RequestContext, provider: PasswordConfig): Promise<ResponseInternal> {
  await verifyCsrf(ctx)
  const adapter = store(ctx.config.stores, "password")
  const user = await signedInUser(ctx, adapter)
  // Not signed in: to the sign-in page, as for any page that needs a session.
  if (!user) return { redirect: `${ctx.authUrl}/signin?error=SessionRequired` }
  const body = ctx.body ?? {}
  const callbackUrl = await resolveCallbackUrl(ctx)
  return refusable(ctx, (error) => {
    const url = new URL(callbackUrl, ctx.origin)
    url.searchParams.set("error", error)
    return url.href
  }, async () => {
    const limiter = ctx.config.rateLimit
    // The sign-in's counter: guesses at the current password here and there add up.
    const identifier = normaliseIdentifier(user.email)
    await limiter?.checkAddress("credentials", ctx.clientAddress)
    await limiter?.checkCredentials(identifier, ctx.clientAddress)
    const stored = await adapter.getUserPassword(user.id)
    const current = typeof body.currentPassword === "string" ? body.currentPassword : ""
    if (!stored || !(await (await passwordTools(ctx.config.kinds)).verifyPassword(current, stored, provider.hashing))) throw new PasswordRejected("PasswordMismatch", "The current password is wrong")
    await limiter?.credentialsSucceeded(identifier)
    const password = await checkNewPassword(provider, ctx.config.passwordStrength, body.password, user.email, ctx.config.telemetry)
    const hash = await (await passwordTools(ctx.config.kinds)).hashPassword(password, provider.hashing)
    // The other sessions end before the new password is stored: if ending them fails (the
    // registry or adapter is down), nothing changed and the user may try again; the other
    // way round, the new password stood while whoever had the old one kept their session.
    await revokeOtherSessions(ctx)
    await adapter.setUserPassword(user.id, hash)
    await notify(ctx, user, "passwordChanged")
    // The current password is a first factor proven just now: it is this action's step-up
    // (docs/step-up.md), and it counts for the next sensitive action too — unless the user
    // has 2FA on, whose sign-in would have asked for the code as well.
    if (!(await twoFactorOn(ctx.config, user.id))) await markCurrentSession(ctx)
    return { redirect: callbackUrl }
  })
}

/**
 * The user this request's session belongs to, or `null` without a valid one. A database
 * session's lookup brings its user along; a JWT names it, to be read from the adapter.
 */
async function signedInUser(ctx: RequestContext, adapter: StoreFor<"password">): Promise<AdapterUser | null> {
  const { name } = ctx.cookieOptions.sessionToken
  if (ctx.config.session.strategy === "database") {
    const token = ctx.cookies[name]
    const found = token ? await store(ctx.config.stores, "database").getSessionAndUser(await storageKey(ctx.config, token)) : null
    const now = Date.now()
    if (!found || found.session.expires.getTime() <= now || pastAbsoluteLifetime(ctx, found.session, now)) return null
    return found.user
  }
  const raw = readChunked(ctx.cookies, name)
  const payload = raw ? (await openToken(ctx, raw).catch(() => null))?.payload : undefined
  if (!payload || typeof payload.sub !== "string" || !(await stillValid(ctx, payload))) return null
  return payload.sub ? adapter.getUser(payload.sub) : null
}
