/**
 * What every call of an extension can do (`ExtensionTools`), built on a request's context:
 * the session, the sentences, the audit stream, rate limits and the mail sender — each the
 * same machinery core's own actions use, so an extension inherits its guarantees (revoked
 * sessions are none, a failing store refuses rather than allows, nothing logs a secret).
 * @module
 */
import { InvalidConfig, NotSignedIn, RateLimited, ServiceUnavailable } from "../../errors.js"
import type { RequestContext } from "../context.js"
import { currentSession } from "../step-up/session.js"
import { requireStepUp } from "../step-up/gate.js"
import { readMark } from "../step-up/marks.js"
import { sha256Hex } from "../crypto.js"
import { sessionKey } from "./session-key.js"
import { loadedMessagesOf, requestLocale } from "../i18n/index.js"
import { fillText } from "../i18n/format.js"
import { audit } from "../audit/index.js"
import { addressBucket } from "../rate-limit/address.js"
import { customFetch } from "../../symbols.js"
import type { EmailConfig } from "../../providers/email.js"
import type { ExtensionAdmin } from "./admin-api.js"
import type { ExtensionMail, ExtensionRateLimit, ExtensionSession, ExtensionTools } from "./api.js"
import type { ResolvedExtension } from "./shapes.js"

export { sessionKey }

/** The tools of `extension` for the request of `ctx`. */
export function toolsFor(ctx: RequestContext, extension: ResolvedExtension): ExtensionTools {
  const { id } = extension.extension
  const locale = requestLocale(ctx)
  const messages = extension.extension.messages
  const catalog = messages?.[locale] ?? messages?.[locale.split("-")[0]!] ?? {}
  // Asked once per call, fresh: a session revoked on another instance is none here at once.
  let session: Promise<ExtensionSession | null> | undefined
  const readSession = () => (session ??= sessionOf(ctx, id))
  return {
    session: readSession,
    async requireSession(options) {
      if (options?.stepUp) {
        await requireStepUp(ctx)
        session = undefined
      }
      const found = await readSession()
      if (!found) throw new NotSignedIn("No valid session in this request")
      return found
    },
    async authTime() {
      const found = await currentSession(ctx, { fresh: true })
      if (!found) return null
      const mark = await readMark(ctx.config, found)
      // The mark ends `stepUp.maxAge` after the proof that set it.
      return mark ? new Date(mark.until.getTime() - ctx.config.stepUp.maxAge * 1000) : null
    },
    locale,
    t(key, values) {
      const template = catalog[key] ?? messages?.en?.[key] ?? key
      return fillText(template, values ? Object.fromEntries(Object.entries(values).map(([k, v]) => [k, String(v)])) : undefined)
    },
    authUrl: ctx.authUrl,
    originTrusted: ctx.originTrusted,
    async audit(event) {
      await audit(ctx, { ...event, type: `${id}.${event.type}` as const })
    },
    rateLimit: (name, limit, subject) => limited(ctx, `${id}:${name}`, limit, subject),
    mail: (message) => sendMail(ctx, message),
    account: lazily(() => import("./account/index.js").then((m) => m.accountApi(ctx))),
    admin: lazyAdmin(ctx, id),
  }
}

/** The admin facet, its code (`admin/index.ts`) loaded with `import()` on the first call. */
function lazyAdmin(ctx: RequestContext, id: string): ExtensionAdmin {
  let loaded: Promise<ExtensionAdmin> | undefined
  const facet = () => (loaded ??= import("./admin/index.js").then((m) => m.adminFacet(ctx, id)))
  const call =
    <K extends Exclude<keyof ExtensionAdmin, "capabilities">>(name: K) =>
    ((...args: unknown[]) => facet().then((loaded) => (loaded[name] as (...a: unknown[]) => unknown)(...args))) as ExtensionAdmin[K]
  return {
    // Synchronous, so answered here from the configuration (the same reading as admin/index.ts).
    capabilities: () => ({
      listUsers: typeof ctx.config.adapter?.listUsers === "function",
      sessions: ctx.config.session.strategy === "database" ? typeof ctx.config.adapter?.listSessions === "function" : !!ctx.config.sessionRegistry,
      audit: !!ctx.config.audit.methods,
      twoFactor: !!ctx.config.twoFactor?.store,
    }),
    listUsers: call("listUsers"),
    getUser: call("getUser"),
    createUser: call("createUser"),
    listSessions: call("listSessions"),
    revokeSessions: call("revokeSessions"),
    twoFactorEnabled: call("twoFactorEnabled"),
    resetTwoFactor: call("resetTwoFactor"),
    auditTrail: call("auditTrail"),
    countSessions: call("countSessions"),
    impersonate: call("impersonate"),
    endImpersonation: call("endImpersonation"),
    sendPasswordReset: call("sendPasswordReset"),
    waysIn: call("waysIn"),
  }
}

/** A facet whose code is loaded with `import()` on its first call (core's startup stays small). */
function lazily<T extends object>(load: () => Promise<T>): T {
  let loaded: Promise<T> | undefined
  // `then` stays undefined: the facet is not a promise to anything that awaits it.
  return new Proxy({} as T, { get: (_, name) => name === "then" ? undefined : async (...args: unknown[]) => ((await (loaded ??= load())) as Record<string | symbol, (...a: unknown[]) => unknown>)[name]!(...args) })
}

/** The request's session as extension `id` sees it, its key hashed per extension. */
async function sessionOf(ctx: RequestContext, id: string): Promise<ExtensionSession | null> {
  const found = await currentSession(ctx, { fresh: true })
  if (!found) return null
  // An extension's limit on the session (an impersonation's end) holds on its routes too.
  if (ctx.config.extensions.inSession.some((e) => e.extension.session?.valid)) {
    const { endSession, sessionAllowed } = await import("./fields.js")
    if (!(await sessionAllowed(ctx, found))) {
      ctx.setCookies.push(...(await endSession(ctx)))
      return null
    }
  }
  return {
    userId: found.userId,
    ...(found.email && { email: found.email }),
    key: await sessionKey(id, found.userId, found.id),
    expires: new Date(Date.now() + ctx.config.session.maxAge * 1000),
  }
}

/**
 * Counts one use against `limit` per client address and per `subject` (default: the user
 * signed in, when the caller read one), in the configuration's rate-limit store. Fail-open
 * as core's address limits are: a store that fails is warned about, the request goes on.
 * Off when the configuration's rate limits are (`rateLimit: false`).
 */
async function limited(ctx: RequestContext, name: string, limit: ExtensionRateLimit, subject: string | undefined): Promise<void> {
  const limiter = ctx.config.rateLimit
  if (!limiter) return
  const { store, allowList, timeout } = limiter.settings
  const keys: string[] = []
  if (ctx.clientAddress !== undefined && !allowList.has(ctx.clientAddress)) keys.push(`x:${name}:a:${addressBucket(ctx.clientAddress)}`)
  if (subject !== undefined) keys.push(`x:${name}:s:${(await sha256Hex(`portcullis-extension-limit\u0000${ctx.config.secrets[0] ?? ""}\u0000${subject}`)).slice(0, 32)}`)
  for (const key of keys) {
    let counter
    try {
      counter = await within(store.hit(key, limit.window), timeout)
    } catch (error) {
      ctx.config.logLimiter.warn("rate-limit-store-failed", name, { error: error instanceof Error ? error.message : String(error) })
      return
    }
    if (counter.count > limit.max) {
      const retryAfter = Math.max(1, Math.ceil(counter.resetMs / 1000))
      ctx.config.logLimiter.warn("rate-limited", name, { action: name, limit: key.includes(":a:") ? "address" : "identifier" })
      throw new RateLimited(`Too many ${name} requests; retry in ${retryAfter} s`, retryAfter)
    }
  }
}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  if (!ms) return promise
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`The rate-limit store did not answer within ${ms} ms`)), ms)))
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

/** Longest a sender may take before the mail counts as failed. */
const SEND_TIMEOUT_MS = 15_000

/** Sends `message` through the configuration's sender (the one security notices use). */
async function sendMail(ctx: RequestContext, message: ExtensionMail): Promise<void> {
  const mailer = ctx.config.notifications.mailer
  if (!mailer) throw new InvalidConfig("This extension sends email, but the configuration has no sender: set notifications.mailer, or add an email or password provider with a mailer")
  const sender: EmailConfig = { ...mailer, [customFetch]: mailer[customFetch] ?? ctx.config.fetch }
  const locale = requestLocale(ctx)
  const { dir } = await loadedMessagesOf(ctx.config.i18n, locale)
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`the sender did not finish within ${SEND_TIMEOUT_MS / 1000} s`)), SEND_TIMEOUT_MS)))
  try {
    await Promise.race([
      mailer.sendVerificationRequest({
        identifier: message.to,
        url: message.url,
        expires: message.expires,
        provider: sender,
        token: "",
        theme: ctx.config.theme,
        request: ctx.request,
        language: { locale, dir, messages: message.messages },
      } as Parameters<EmailConfig["sendVerificationRequest"]>[0]),
      late,
    ])
  } catch (error) {
    const failure = new ServiceUnavailable("The mail sender failed", error as Error)
    ctx.config.storeHealth.raised("mail sender", failure)
    throw failure
  } finally {
    clearTimeout(timer)
  }
}
