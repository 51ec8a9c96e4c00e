import type { AdapterUser } from "../../adapters.js"
import { CredentialsSignin, InvalidConfig, MethodNotAllowed } from "../../errors.js"
import { hashPassword, needsRehash, verifyPassword } from "../../password.js"
import type { PasswordConfig } from "../password/provider-types.js"
import type { Account } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import { verifyCsrf } from "../csrf.js"
import { normalizeEmail } from "../email/normalize.js"
import { establishSession, runSignInCallback } from "../login.js"
import { store } from "../config/stores.js"
import { normaliseIdentifier } from "../rate-limit/limiter.js"
import type { ProviderKind } from "./kind.js"
import { breachOptionsProblem } from "../password-flows/breached.js"
import { report } from "../report.js"
import { buildEstimator } from "../password-flows/estimator.js"

/**
 * What the password flows besides sign-in (sign-up, reset, change, step-up) take from this
 * kind: Argon2 (hash-wasm) and the strength estimator (zxcvbn) come with `Password()` this
 * way, so an app without the provider ships neither (`lib/kinds/provided.ts`).
 */
export interface PasswordTools {
  hashPassword: typeof hashPassword
  verifyPassword: typeof verifyPassword
  buildEstimator: typeof buildEstimator
}

/**
 * Password: `POST /callback/:id` with `email` and `password`; CSRF-checked, rate limited
 * per address and per identifier like credentials. Every refusal — unknown address, wrong
 * password, lockout — is the same `CredentialsSignin`, reached after the same work (one
 * argon2 verification); an unconfirmed address with the right password is `CredentialsSignin`
 * with `code: "unverified"`, so its owner is told to confirm it.
 */
export const passwordKind: ProviderKind<PasswordConfig> & { tools: PasswordTools } = {
  tools: { hashPassword, verifyPassword, buildEstimator },

  check(providers, { session }) {
    for (const p of providers) {
      const problem = checkOptions(p)
      if (problem) return new InvalidConfig(`The password provider "${p.id}" ${problem}`)
      // A reset and a change must end the user's other sessions (whoever knew the old
      // password may hold one). Refused here, before any request: found at request time, the
      // new password was stored and the attacker's sessions went on.
      if (!session.revocable) return new InvalidConfig(`The password provider "${p.id}" ${UNREVOCABLE[session.strategy]}`)
    }
    return undefined
  },

  async callback(ctx, provider) {
    if (ctx.method !== "POST") throw new MethodNotAllowed("Password sign-in is a POST to /callback/<id>")
    await verifyCsrf(ctx)
    const body = ctx.body ?? {}
    const password = typeof body.password === "string" ? body.password : ""
    const limiter = ctx.config.rateLimit
    const address = lookupAddress(body.email)
    // Counted by what the lookup will use, folded further: every spelling that finds one user
    // is one counter. An address the lookup refuses finds nobody; it counts by its text.
    const identifier = normaliseIdentifier(address ?? body.email)
    await limiter?.checkAddress("credentials", ctx.clientAddress)
    await limiter?.checkCredentials(identifier, ctx.clientAddress)

    const user = await checkPassword(ctx, provider, address, password)
    await limiter?.credentialsSucceeded(identifier)
    const account: Account = { providerAccountId: user.id, type: "password", provider: provider.id, userId: user.id }

    const redirect = await runSignInCallback(ctx, { user, account, credentials: { email: user.email } })
    if (redirect) return { redirect }
    return establishSession(ctx, { user, account, isNewUser: false })
  },
}

/**
 * The user whose password this is, else `CredentialsSignin`. An address that is malformed
 * or has no user (or no password) still costs one full argon2 hash, so the time taken says
 * nothing about who has an account. A hash made with weaker parameters than the configured
 * ones is replaced on the way (best effort: a failed rehash does not fail the sign-in).
 */
async function checkPassword(ctx: RequestContext, provider: PasswordConfig, address: string | undefined, password: string): Promise<AdapterUser> {
  const adapter = store(ctx.config.stores, "password")
  const user = address ? await adapter.getUserByEmail(address) : null
  const stored = user ? await adapter.getUserPassword(user.id) : null
  const ok = await verifyPassword(password, stored, provider.hashing)
  if (!user || !stored || !ok) throw new CredentialsSignin("Wrong email address or password")
  // Checked after the password and after the same work, so only someone who knew the
  // password learns that the address is unconfirmed (`?code=unverified`: the page says how
  // to confirm it); to everyone else it answers like a wrong password.
  if (provider.emailVerification === "required" && !user.emailVerified) throw unconfirmed()
  if (needsRehash(stored, provider.hashing)) {
    try {
      await adapter.setUserPassword(user.id, await hashPassword(password, provider.hashing))
    } catch (error) {
      // Best effort: the sign-in goes on. A store failure here counts toward its outage.
      report(ctx.config, error)
    }
  }
  return user
}

/** The refusal of a right password on an unconfirmed address: `CredentialsSignin`, its own `code`. */
function unconfirmed(): CredentialsSignin {
  const error = new CredentialsSignin("The address is not confirmed yet")
  error.code = "unverified"
  return error
}

/** Why a session strategy cannot end a user's other sessions, as the configuration error says it. */
const UNREVOCABLE = {
  jwt: "needs session.registry with JWT sessions: a password reset or change ends the user's other sessions, and a JWT cannot be revoked before it expires without a registry. Set session.registry (docs/sessions.md) or use database sessions",
  database: "needs an adapter with listSessions with database sessions: a password reset or change ends the user's other sessions, which are found through listSessions (an Auth.js adapter does not have it; see docs/adapters.md)",
} as const

/** The address the user lookup uses (`normalizeEmail`), or `undefined` when it refuses the input. */
function lookupAddress(email: unknown): string | undefined {
  try {
    return normalizeEmail(email)
  } catch {
    return undefined
  }
}

/** What is wrong with a password provider's options, or `undefined`. */
function checkOptions(p: PasswordConfig): string | undefined {
  if (p.emailVerification !== "required" && p.emailVerification !== "optional") {
    return `has emailVerification ${JSON.stringify(p.emailVerification)}; use "required" or "optional"`
  }
  for (const name of ["verificationMaxAge", "resetMaxAge"] as const) {
    const value = p[name]
    if (value !== undefined && (typeof value !== "number" || !Number.isFinite(value) || value <= 0)) return `has ${name} ${JSON.stringify(value)}; use a positive number of seconds`
  }
  const { minLength, minScore } = p.policy ?? {}
  if (minLength !== undefined && (!Number.isSafeInteger(minLength) || minLength < 1 || minLength > 1024)) return `has policy.minLength ${JSON.stringify(minLength)}; use a whole number from 1 to 1024`
  if (minScore !== undefined && ![0, 1, 2, 3, 4].includes(minScore)) return `has policy.minScore ${JSON.stringify(minScore)}; use 0, 1, 2, 3 or 4`
  const breached = breachOptionsProblem(p.policy?.breached)
  if (breached) return breached
  if (p.waitUntil !== undefined && typeof p.waitUntil !== "function") return "has a waitUntil that is not a function; pass the platform's waitUntil, or leave it out"
  if (p.mailer !== undefined && (p.mailer?.type !== "email" || typeof p.mailer.sendVerificationRequest !== "function")) return "has a mailer that is not an email provider (Nodemailer(…), Resend(…), …)"
  return undefined
}
