import { AuthError } from "../errors.js"
import type { LoggerInstance, WarningCode } from "../base-types.js"

const warnings: Record<WarningCode, string> = {
  "debug-enabled": "Debug logging is on. It can log sensitive request data; turn it off in production.",
  "csrf-disabled": "CSRF protection is off (skipCSRFCheck). Only framework integrations that check the origin of form posts may do this.",
  "env-url-basepath-redundant": "Both AUTH_URL and basePath set a path; basePath wins.",
  "env-url-basepath-mismatch": "The path of AUTH_URL differs from basePath; basePath wins.",
  "experimental-webauthn": "WebAuthn (passkeys) is experimental: its API may change.",
  "short-secret": "The secret is shorter than 32 characters. Generate one with `npx @portcullis/cli secret`.",
  "host-derived-redirect-uri":
    "An OAuth redirect_uri was built from the request's Host header (trustHost without AUTH_URL or trustedOrigins). The provider's list of registered redirect URIs is then the only check: set AUTH_URL or trustedOrigins.",
  "insecure-provider-endpoint":
    "An OAuth/OIDC provider uses a plain-http endpoint. Allowed on any host in development (NODE_ENV=development or test) and on this machine's loopback hosts whenever NODE_ENV is not production; otherwise (NODE_ENV unset included) a configuration error. In production a loopback host also needs allowInsecureLoopback: true. Use https.",
  "token-refresh-conflict":
    "A refreshed provider token was not stored: the account changed while the refresh ran (a new sign-in, or a refresh lock that expired under a slow token endpoint). The stored token stays; raise tokenRefresh.lockTtl if the provider is slow.",
  "token-refresh-local-lock":
    "Provider token refreshes are locked within this process only: the adapter has no acquireLock/releaseLock and no tokenRefresh.lock is set. With several app instances, two may refresh one account at once; give them a shared lock (docs/tokens.md).",
  "session-cookie-unreadable":
    "A session cookie could not be read and was deleted. Expected now and then (expired sessions, a removed secret); a flood means a client is sending garbage.",
  "rate-limited":
    "A request was refused by a rate limit or a sign-in lockout (429). Now and then is normal; a stream of them is an attack or a client in a loop. Subscribe to the rateLimited event for detail.",
  "password-breach-check-failed":
    "The breached-password range API (password provider, policy.breached) gave no usable answer in time. With onError \"open\" the new password was accepted unchecked; with \"closed\" it was refused with PasswordCheckUnavailable.",
  "rate-limit-store-failed":
    "The rate-limit store failed or did not answer in time. Requests of actions not in rateLimit.failClosed were let through uncounted; credentials sign-ins (failClosed by default) were refused with 503.",
  "two-factor-code-refused":
    "A two-factor code was refused at the second sign-in step (wrong, malformed, already used, or a secret sealed under an AUTH_SECRET no longer configured). Now and then is a typo; a stream for one user is someone guessing after their first factor — see the rateLimited event.",
  "express-trust-proxy-all":
    "Express's trust proxy is true: req.ip is then the leftmost X-Forwarded-For entry, which the client writes, so every forged value is a fresh rate-limit counter. Set trust proxy to the number of proxies in front of the app (1 for one load balancer), or to their addresses (docs/rate-limiting.md).",
  "security-notice-unsent":
    "A security notice email (docs/notifications.md) was not sent: the sender failed or took longer than 15 s, the user could not be read, or there was no trusted origin for its link (set AUTH_URL). The action itself went through; the securityNotice event fired with emailed: false.",
  "csrf-refused":
    "A form post came without a valid CSRF token (missing, stale, or forged). Now and then is an old tab; a stream is a forgery attempt. Nothing changed.",
  "verification-refused":
    "A sign-in or verification link was refused: unknown, used, expired or for another address. Now and then is a link clicked twice; a stream is someone guessing tokens.",
  "oauth-check-refused":
    "An OAuth/OIDC callback was refused: its state, PKCE or nonce check failed, or the provider answered with an error. Now and then is a stale tab; a stream is forged callbacks. A steady stream from real users with one provider may be a provider or client-secret problem: the message says which step failed.",
  "challenge-refused":
    "A two-factor challenge cookie or a passkey response was missing, expired, forged or did not verify. The user starts again; a stream is forged cookies or responses.",
  "request-malformed":
    "A request was refused before any action ran: unreadable or oversized body, unknown action or provider, wrong method, bad callbackUrl. A stream is a scanner or a broken client.",
  "credentials-refused":
    "A sign-in or password form was refused: wrong credentials, or a new password the policy refuses. Now and then is a typo; a stream is password guessing (see rateLimit and the rateLimited event).",
  "extension-refused": "An extension refused a request (a client's doing: the reason is in `kind`).",
  "sign-in-refused":
    "A sign-in or account action was refused for the user's state: the signIn callback returned false, an account belongs to another user, no session, step-up or two-factor state missing. Expected now and then.",
  "store-failing":
    "A store (the adapter, session registry, step-up or rate-limit store) keeps failing: requests answer 503 ServiceUnavailable (the audit sink: the audit event handler keeps failing, requests go on; the mail sender: emails cannot be sent, those requests answer EmailSignin). Its first failure was logged as an error with its cause; this line counts the failures since.",
  "store-recovered":
    "A store answered again after failing: the outage is over. The line gives the failed requests and how long it lasted.",
  "rate-limit-no-address":
    "A request had no client address to count against (trustHost off and no clientAddress from the integration), so only per-identifier limits applied. Pass the socket address (Express does) or set trustHost behind a proxy that sets X-Forwarded-For.",
}

/**
 * Fills the logger methods the app left out with console-backed defaults. `debug` turns
 * on the console's debug lines; a custom `logger.debug` is always called.
 */
export function createLogger(custom: Partial<LoggerInstance> | undefined, debug: boolean): LoggerInstance {
  const warned = new Set<WarningCode>()
  return {
    error: quiet(custom?.error?.bind(custom)) ?? logError,
    warn:
      quiet(custom?.warn?.bind(custom)) ??
      ((code, details) => {
        if (details) {
          // Warnings with details come rate-limited already (LogLimiter) and carry counts.
          console.warn(`[auth][warn][${code}] ${warnings[code] ?? ""}`, safeJson(details))
          return
        }
        // One line per code per process is enough: a warning on every request drowns logs.
        if (warned.has(code)) return
        warned.add(code)
        console.warn(`[auth][warn][${code}] ${warnings[code] ?? ""}`)
      }),
    // As the spec (§2.12) and Auth.js's setLogger: `debug` switches the console default only.
    // An app that brings its own `logger.debug` gets every debug message and filters them
    // itself. Nothing logged at debug carries token material (event names, user ids, codes),
    // so handing them to the app's logger unasked exposes no secret.
    debug: quiet(custom?.debug?.bind(custom)) ?? (debug ? (message, metadata) => console.log(`[auth][debug]: ${message}`, safeJson(metadata, 2)) : () => {}),
  }
}

/**
 * The app's logger method, made unable to fail the request it logs for: a logger that
 * throws (on an error whose cause refers back to itself, a full disk) would otherwise turn a
 * store outage answered 503, or a refusal answered 4xx, into a 500 from deep in the catch
 * that was reporting it.
 */
function quiet<A extends unknown[]>(method: ((...args: A) => void) | undefined): ((...args: A) => void) | undefined {
  return (
    method &&
    ((...args) => {
      try {
        // A promise-returning logger's rejection is caught too (it is never awaited).
        ;(method(...args) as unknown as Promise<void> | undefined)?.catch?.(() => {})
      } catch {
        // Nowhere left to say it: the logger is what failed.
      }
    })
  )
}

/**
 * Auth.js's log shape, so log searches and alerts carry over: `[auth][error] <Type>:
 * <message>. Read more at <url>`, then the cause's stack and details, or the error's own
 * stack when it has no cause.
 */
function logError(error: Error) {
  const name = error instanceof AuthError ? error.type : error.name
  console.error(`[auth][error] ${name}: ${error.message}`)
  const cause = (error as AuthError).cause
  if (cause && typeof cause === "object" && (cause as Record<string, unknown>).err instanceof Error) {
    const { err, ...details } = cause as Record<string, unknown>
    // Down the chain (ServiceUnavailable → AdapterError → the driver's error): each link's
    // name and message, and the stack of the last, where the failure happened.
    let link = err as Error
    for (let depth = 0; depth < 8; depth++) {
      const next = (link as AuthError).cause?.err
      if (!(link instanceof AuthError) || !(next instanceof Error)) break
      console.error(`[auth][cause]: ${link.type}: ${link.message}`)
      link = next
    }
    console.error("[auth][cause]:", link.stack ?? link.message)
    if (Object.keys(details).length) console.error("[auth][details]:", safeJson(details, 2))
  } else {
    if (error.stack) console.error(error.stack.replace(/.*/, "").substring(1))
    if (cause && typeof cause === "object" && Object.keys(cause).length) console.error("[auth][details]:", safeJson(cause, 2))
  }
}

/**
 * Line breaks JSON leaves as they are: NEL and the Unicode line and paragraph separators.
 * Log tools that split lines on them (Python's `splitlines`, some viewers) would start a
 * new line inside a client's text ("x\u2028[auth][error] …" as a forged line of its own).
 */
const UNICODE_BREAKS = /[\u0085\u2028\u2029]/g

/** JSON on one line per value: every character that could break a line is escaped (the result is still JSON of the same value). */
function safeJson(value: unknown, indent?: number) {
  try {
    return JSON.stringify(value, null, indent)?.replace(UNICODE_BREAKS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
  } catch {
    return "[unserialisable]"
  }
}
