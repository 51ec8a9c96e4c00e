import type { AdapterUser } from "../../adapters.js"
import { EmailSignInError, Verification } from "../../errors.js"
import type { EmailConfig } from "../../providers/email.js"
import type { Account } from "../../base-types.js"
import { providerUrls, resolveCallbackUrl, type RequestContext } from "../context.js"
import { ensureCsrfToken, verifyCsrf } from "../csrf.js"
import { timingSafeEqual } from "../crypto.js"
import { renderConfirmPage } from "../email/confirm-page.js"
import { messagesOf, requestLocale } from "../i18n/index.js"
import { AddressRefused, checkAddress, normalizeEmail } from "../email/normalize.js"
import { deliverLink } from "../email/send.js"
import { generateToken, hashToken, MAX_TOKEN_LENGTH, tokenExpiry } from "../email/token.js"
import { isReservedIdentifier } from "../verification-identifiers.js"
import { pageHeaders } from "../http/response.js"
import { replaceUnverifiedUser } from "../first-verification.js"
import { admitSignIn, createUserOnce, establishSession, runSignInCallback } from "../login.js"
import { requireTrustedOrigin } from "../origin-trust.js"
import type { ProviderKind } from "./kind.js"
import { store } from "../config/stores.js"
import { audit } from "../audit/index.js"

/**
 * Email (magic link). `POST /signin/:id` mails a single-use link (CSRF is checked by the
 * signin action before it gets here); `GET /callback/:id` shows a button whose CSRF-checked
 * `POST /callback/:id` consumes it and signs in — or, with `interstitial: false` (Auth.js's
 * behaviour), the GET does.
 */
export const emailKind: ProviderKind<EmailConfig> = {
  async signin(ctx, provider) {
    // The link goes to a mailbox: its origin must not come from a Host header (T32).
    requireTrustedOrigin(ctx, "Mailing a sign-in link")
    const adapter = store(ctx.config.stores, "email")
    await ctx.config.rateLimit?.checkAddress("email", ctx.clientAddress)
    const identifier = normalizeIdentifier(provider, ctx.body?.email)
    // Counted before the user is looked up: known and unknown addresses are limited alike.
    await ctx.config.rateLimit?.checkEmail(identifier, ctx.clientAddress)
    // Known and unknown addresses take the same path (lookup, callback, store, send) and
    // get the same redirect, so the response says nothing about who has an account.
    const existing = await adapter.getUserByEmail(identifier)
    const user = existing ?? { id: crypto.randomUUID(), email: identifier, emailVerified: null }
    const redirect = await runSignInCallback(ctx, { user, account: emailAccount(provider, identifier, user.id), email: { verificationRequest: true } })
    if (redirect) return { redirect }
    // An address the extensions' gates refuse (a domain that requires SSO) gets no link: the
    // sign-in it would start ends refused anyway. Asked by the address alone, known or not,
    // so the answer says nothing about who has an account; a ban of a user is the session's
    // gate's to find, once the link is used.
    await admitSignIn(ctx, { email: identifier, provider: provider.id })

    const token = await generateToken(provider)
    const hashed = await hashToken(token, provider, ctx.config.secrets)
    const expires = tokenExpiry(provider)
    const url = signInLink(ctx, provider, { callbackUrl: await resolveCallbackUrl(ctx), token, email: identifier })
    // Stored before sending, so the link works the moment it arrives; deliverLink deletes
    // it again if the send fails.
    await adapter.createVerificationToken({ identifier, token: hashed, expires })
    await deliverLink(ctx, provider, { identifier, token, hashed, url, expires })

    const page = new URL(`${ctx.authUrl}/verify-request`)
    page.searchParams.set("provider", provider.id)
    page.searchParams.set("type", "email")
    return { redirect: page.href }
  },

  async callback(ctx, provider) {
    if (ctx.method === "POST") await verifyCsrf(ctx)
    const source: Record<string, unknown> = ctx.method === "POST" ? (ctx.body ?? {}) : ctx.query
    const link = readLink(source)
    // A GET uses nothing unless the app opted out: mail scanners fetch every link (T47).
    if (ctx.method === "GET" && provider.interstitial !== false) return confirmPage(ctx, provider, link)

    const identifier = await consumeToken(ctx, provider, link)
    const adapter = store(ctx.config.stores, "email")
    const found = await adapter.getUserByEmail(identifier)
    // A user whose address was never verified is replaced, not adopted (T67): the
    // callback sees the user this sign-in will produce.
    const kept = found?.emailVerified ? found : null
    const userId = kept?.id ?? crypto.randomUUID()
    const candidate = kept ?? { id: userId, email: identifier, emailVerified: null }
    // Second call, without `email`: the link proved the address, sign-in may proceed.
    const redirect = await runSignInCallback(ctx, { user: candidate, account: emailAccount(provider, identifier, userId) })
    if (redirect) return { redirect }

    const { user, isNewUser } = await verifiedUser(ctx, provider, found, userId, identifier)
    return establishSession(ctx, { user, account: emailAccount(provider, identifier, user.id), isNewUser })
  },
}

/** The provider's normaliser (or the default), then the safety floor; refusals become `EmailSignin`. */
function normalizeIdentifier(provider: EmailConfig, input: unknown): string {
  try {
    if (!provider.normalizeIdentifier) return normalizeEmail(input)
    if (typeof input !== "string") throw new AddressRefused("missing")
    const identifier = provider.normalizeIdentifier(input)
    checkAddress(identifier)
    return identifier
  } catch (error) {
    // Only the reason code is kept: the input may hold CR/LF or a payload meant for logs.
    const reason = error instanceof AddressRefused ? error.reason : "normalizeIdentifier-threw"
    throw new EmailSignInError(`The submitted email address was refused (${reason}); nothing was sent`, { reason })
  }
}

function emailAccount(provider: EmailConfig, identifier: string, userId: string): Account {
  return { provider: provider.id, type: "email", providerAccountId: identifier, userId }
}

/** `{origin}{basePath}/callback/{id}?callbackUrl=…&token=…&email=…`, on the configured origin (T32). */
function signInLink(ctx: RequestContext, provider: EmailConfig, params: { callbackUrl: string; token: string; email: string }): string {
  const url = new URL(providerUrls(ctx, provider).callbackUrl)
  url.searchParams.set("callbackUrl", params.callbackUrl)
  url.searchParams.set("token", params.token)
  url.searchParams.set("email", params.email)
  return url.href
}

interface LinkParams {
  token: string
  email: string
}

/**
 * Token and address from the link (query) or the interstitial's form (body). The
 * verification-token table also holds the password links' and passkey challenges' rows:
 * a link naming one of their identifiers (`password-reset:…`) is no sign-in link, whatever
 * its token. Only those namespaces are refused, not every address today's floor refuses:
 * a link Auth.js mailed before a migration (`ada@[192.0.2.7]`) must still open.
 */
function readLink(source: Record<string, unknown>): LinkParams {
  const { token, email } = source
  if (typeof token !== "string" || !token || token.length > MAX_TOKEN_LENGTH || typeof email !== "string" || !email || email.length > 320) {
    throw new Verification("The sign-in link is missing its token or address")
  }
  if (isReservedIdentifier(email)) throw new Verification("The sign-in link names a record that is not a sign-in link")
  return { token, email }
}

/**
 * Takes the token out of storage — one atomic read-and-delete, so of two concurrent
 * openings of one link exactly one gets past here — and checks it is the one made for
 * this address and still within its lifetime. The address in the link is compared as
 * sent, not re-normalised: it was written by us.
 */
async function consumeToken(ctx: RequestContext, provider: EmailConfig, link: LinkParams): Promise<string> {
  const hashed = await hashToken(link.token, provider, ctx.config.secrets)
  const stored = await store(ctx.config.stores, "email").useVerificationToken({ identifier: link.email, token: hashed })
  if (!stored) throw new Verification("The sign-in link is unknown or was already used")
  // Adapters differ on expiry (some delete expired rows, some return them): check here.
  if (!(stored.expires instanceof Date) || stored.expires.getTime() <= Date.now()) throw new Verification("The sign-in link has expired")
  if (stored.identifier !== link.email || !timingSafeEqual(stored.token, hashed)) {
    throw new Verification("The sign-in link does not match its address")
  }
  return stored.identifier
}

/**
 * The user the link proved: a verified one as it is; an unverified one (made by a passkey
 * sign-up, an OAuth profile or credentials, by whoever typed the address) is deleted with
 * everything it holds and replaced by a fresh verified user (T67, `createUser` event); with
 * no user yet, one is created verified (`createUser` event).
 */
async function verifiedUser(ctx: RequestContext, provider: EmailConfig, found: AdapterUser | null, userId: string, email: string): Promise<{ user: AdapterUser; isNewUser: boolean }> {
  if (found?.emailVerified) return { user: found, isNewUser: false }
  // A new user either way: the gates are asked before it is made (and before an unverified
  // one is deleted, with that user's id: a ban of it is not shed by verifying the address),
  // so a refusal leaves the store as it was.
  await admitSignIn(ctx, { ...(found && { userId: found.id }), email, provider: provider.id })
  const fresh = { id: userId, email, name: null, image: null }
  if (found) return replaceUnverifiedUser(ctx, found, fresh)
  // Links opened at once for one new address: the first insert wins, the rest use its user.
  const outcome = await createUserOnce(ctx, { ...fresh, emailVerified: new Date() }, () => store(ctx.config.stores, "email").getUserByEmail(email))
  if (!outcome.isNewUser) return verifiedUser(ctx, provider, outcome.user, userId, email)
  await audit(ctx, { type: "emailVerified", outcome: "success", userId: outcome.user.id })
  return outcome
}

/** The interstitial: shows a button that posts the link back; consumes nothing. */
async function confirmPage(ctx: RequestContext, provider: EmailConfig, link: LinkParams) {
  const locale = requestLocale(ctx)
  const body = renderConfirmPage({
    theme: ctx.config.theme,
    locale,
    messages: messagesOf(ctx.config.i18n, locale),
    action: providerUrls(ctx, provider).callbackUrl,
    csrfToken: await ensureCsrfToken(ctx),
    callbackUrl: await resolveCallbackUrl(ctx),
    token: link.token,
    email: link.email,
    host: new URL(ctx.origin).host,
  })
  return { headers: pageHeaders, body }
}
