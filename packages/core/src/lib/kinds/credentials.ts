import type { AdapterUser } from "../../adapters.js"
import { AuthError, CallbackRouteError, CredentialsSignin, MethodNotAllowed } from "../../errors.js"
import type { CredentialsConfig } from "../../providers/credentials.js"
import type { Account, User } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import { verifyCsrf } from "../csrf.js"
import { admitSignIn, createUserOnce, establishSession, runSignInCallback } from "../login.js"
import type { ProviderKind } from "./kind.js"
import { store } from "../config/stores.js"
import { normaliseIdentifier } from "../rate-limit/limiter.js"

/** Credentials: `POST /callback/:id` with the form fields; CSRF-checked. */
export const credentialsKind: ProviderKind<CredentialsConfig> = {
  async callback(ctx, provider) {
    if (ctx.method !== "POST") throw new MethodNotAllowed("Credentials sign-in is a POST to /callback/<id>")
    await verifyCsrf(ctx)
    const credentials: Record<string, unknown> = { ...ctx.body }
    // Limits come before authorize(): a refused attempt checks no password, so a right one
    // during a lockout is refused exactly like a wrong one, for known and unknown users.
    const limiter = ctx.config.rateLimit
    const identifiers = limiter ? credentialsIdentifiers(provider, credentials) : []
    await limiter?.checkAddress("credentials", ctx.clientAddress)
    for (const identifier of identifiers) await limiter?.checkCredentials(identifier, ctx.clientAddress)
    const user = await authorize(ctx, provider, credentials)
    // Only an attempt that named one identifier clears it: with both an email and a username
    // we don't know which one signed in, and the other may be a victim's the attacker named
    // to wipe its count with their own account's right password.
    if (identifiers.length === 1) await limiter?.credentialsSucceeded(identifiers[0])
    const account: Account = { providerAccountId: user.id!, type: "credentials", provider: provider.id }

    const redirect = await runSignInCallback(ctx, { user, account, credentials })
    if (redirect) return { redirect }

    if (ctx.config.session.strategy === "database") {
      const { user: stored, isNewUser } = await findOrCreateUser(ctx, provider, user)
      return establishSession(ctx, { user: stored, account, isNewUser })
    }
    return establishSession(ctx, { user, account, isNewUser: false })
  },
}

/**
 * Who a credentials attempt is for, as the lockout counts it: the first declared field that
 * is not a password (`username`, `email`, …); with no declared field, each of a submitted
 * `email` and `username` — the lockout cannot know which one `authorize()` reads, and
 * counting only one would let a decoy in the other shed the lockout (every attempt then
 * counts against both). Normalised; empty when there is none: then only the per-address
 * limit applies.
 */
function credentialsIdentifiers(provider: CredentialsConfig, credentials: Record<string, unknown>): string[] {
  const fields = Object.entries((provider.credentials ?? {}) as Record<string, { type?: unknown } | undefined>)
  const named = fields.find(([, field]) => field?.type !== "password")?.[0]
  const values = named !== undefined ? [credentials[named]] : [credentials.email, credentials.username]
  const identifiers = values.map(normaliseIdentifier).filter((id): id is string => id !== undefined)
  return [...new Set(identifiers)]
}

async function authorize(ctx: RequestContext, provider: CredentialsConfig, credentials: Record<string, unknown>): Promise<User> {
  // authorize() gets a request it may read freely: a copy with the parsed body as JSON.
  const request = new Request(ctx.url, {
    method: "POST",
    headers: ctx.headers,
    body: JSON.stringify(credentials),
  })
  let user: User | null
  try {
    user = await provider.authorize(credentials, request)
  } catch (error) {
    if (error instanceof AuthError) throw error
    throw new CallbackRouteError("authorize() threw", error as Error)
  }
  // Unknown user and wrong password end the same way: no hint of which it was.
  if (!user) throw new CredentialsSignin("authorize() returned null")
  return { ...user, id: user.id !== undefined && user.id !== null ? String(user.id) : crypto.randomUUID() }
}

/**
 * Database sessions need a stored user: the one with this id, else with this email,
 * else a new one (Auth.js refuses credentials with database sessions altogether). Parallel
 * first sign-ins all succeed, with one user.
 */
async function findOrCreateUser(ctx: RequestContext, provider: CredentialsConfig, user: User): Promise<{ user: AdapterUser; isNewUser: boolean }> {
  const adapter = store(ctx.config.stores, "credentials")
  const byId = await adapter.getUser(user.id!)
  if (byId) return { user: byId, isNewUser: false }
  if (user.email) {
    const byEmail = await adapter.getUserByEmail(user.email)
    if (byEmail) return { user: byEmail, isNewUser: false }
  }
  // The gates before the user is stored, without an id: `authorize()` named one, but no
  // stored user has it yet (a ban is of a stored user). A refusal stores nothing.
  await admitSignIn(ctx, { email: user.email, provider: provider.id })
  // A concurrent first sign-in of the same user may insert first: then continue with its row.
  return createUserOnce(
    ctx,
    { id: user.id, email: user.email ?? "", emailVerified: null, name: user.name ?? null, image: user.image ?? null },
    async () => (await adapter.getUser(user.id!)) ?? (user.email ? await adapter.getUserByEmail(user.email) : null),
  )
}
