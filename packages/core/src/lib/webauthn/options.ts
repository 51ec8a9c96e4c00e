import { generateAuthenticationOptions, generateRegistrationOptions } from "@simplewebauthn/server"
import type { AdapterAuthenticator, AdapterUser } from "../../adapters.js"
import { DEFAULT_WEBAUTHN_TIMEOUT, type WebAuthnConfig } from "../../providers/webauthn.js"
import type { ResponseInternal } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import { privateJsonHeaders } from "../http/response.js"
import { sessionStrategy } from "../session/index.js"
import { issueChallenge, type ChallengeState } from "./challenge.js"
import { browserCredentialId, stringToTransports } from "./encoding.js"
import { hookOptions, hookRequest, relyingParty } from "./relying-party.js"
import { store } from "../config/stores.js"
import { AddressRefused, normalizeEmail } from "../email/normalize.js"

/** Who is asking for options: the signed-in user, a user named by email, or nobody known. */
interface Requester {
  signedIn: AdapterUser | null
  /** The email from the query, normalised; `undefined` when none was given. */
  email: string | undefined
  /** The stored user with that email, if any. */
  byEmail: AdapterUser | null
}

const json = (status: number, body: unknown): ResponseInternal => ({ status, headers: privateJsonHeaders, body })

/**
 * `GET /webauthn-options/:provider?action=register|authenticate[&email=…]`.
 *
 * Without `action`: `register` when the user is signed in (adding a passkey) or names an
 * email nobody has (signing up), else `authenticate`. An explicit `register` must fit one
 * of those two cases: registering a passkey onto someone else's existing account would
 * take it over. Refusals are `400 {"error": …}`, like Auth.js.
 */
export async function webauthnOptions(ctx: RequestContext, provider: WebAuthnConfig): Promise<ResponseInternal> {
  const requested = ctx.query.action
  if (requested !== undefined && requested !== "register" && requested !== "authenticate") {
    return json(400, { error: "Invalid action" })
  }
  const adapter = store(ctx.config.stores, "webauthn")
  const userId = await sessionStrategy(ctx).currentUserId(ctx)
  // A session whose user is not stored (e.g. a JWT from a credentials provider) cannot own a passkey.
  const signedIn = userId ? await adapter.getUser(userId) : null
  // Who asks, when nobody is signed in: the app's getUserInfo (Auth.js's hook), else `?email=`.
  const info = signedIn ? undefined : await userInfo(ctx, provider)
  const typed = (info ? info.email : ctx.query.email)?.trim() || undefined
  // One rule for addresses: the email provider's. A passkey sign-up stores the address that
  // provider would store, so a later email link finds the same user.
  const email = typed === undefined ? undefined : addressOf(typed)
  if (email === null) return json(400, { error: "Invalid email" })
  // The store decides whether the address is taken, whatever a hook said.
  const byEmail = (info?.id ? await adapter.getUser(info.id) : null) ?? (typed ? await findUserByEmail(ctx, typed) : null)
  const requester: Requester = { signedIn, email: typed, byEmail }
  const action = requested ?? (requester.signedIn || (email && !requester.byEmail) ? "register" : "authenticate")
  return action === "register" ? registration(ctx, provider, requester) : authentication(ctx, provider, requester)
}

/** The app's `getUserInfo` answer, reduced to what is used: an email, and a stored user's id. */
async function userInfo(ctx: RequestContext, provider: WebAuthnConfig): Promise<{ email: string | undefined; id?: string } | undefined> {
  if (typeof provider.getUserInfo !== "function") return undefined
  const answer = await provider.getUserInfo(hookOptions(ctx, provider), hookRequest(ctx))
  if (!answer || typeof answer !== "object") return { email: undefined }
  const user = (answer.user ?? {}) as { email?: unknown; id?: unknown }
  return {
    email: typeof user.email === "string" ? user.email : undefined,
    ...(answer.exists && typeof user.id === "string" && { id: user.id }),
  }
}

async function registration(ctx: RequestContext, provider: WebAuthnConfig, { signedIn, email, byEmail }: Requester): Promise<ResponseInternal> {
  let registrant: ChallengeState["registrant"]
  let user: { id?: string; email: string; name?: string | null }
  if (signedIn) {
    registrant = { userId: signedIn.id }
    user = signedIn
  } else if (email && !byEmail) {
    registrant = { email: addressOf(email) ?? email }
    user = { email: registrant.email }
  } else {
    return json(400, { error: "Invalid request" })
  }
  const rp = await relyingParty(ctx, provider)
  const existing = user.id ? await store(ctx.config.stores, "webauthn").listAuthenticatorsByUserId(user.id) : []
  const timeout = provider.registrationOptions?.timeout ?? DEFAULT_WEBAUTHN_TIMEOUT
  const options = await generateRegistrationOptions({
    ...provider.registrationOptions,
    timeout,
    rpID: rp.id,
    rpName: rp.name,
    userName: user.email || user.id!,
    userDisplayName: user.name ?? user.email ?? "",
    // A fresh random handle per credential, as Auth.js does: the account is found from
    // the credential id, so the handle never has to identify anyone.
    userID: crypto.getRandomValues(new Uint8Array(32)),
    excludeCredentials: existing.map(descriptor),
    challenge: undefined,
  })
  const cookie = await issueChallenge(ctx, provider.id, options.challenge, { ceremony: "register", registrant }, timeout)
  return { ...json(200, { action: "register", options }), cookies: [cookie] }
}

async function authentication(ctx: RequestContext, provider: WebAuthnConfig, { signedIn, byEmail }: Requester): Promise<ResponseInternal> {
  const known = signedIn ?? byEmail
  const rp = await relyingParty(ctx, provider)
  const allow = known ? await store(ctx.config.stores, "webauthn").listAuthenticatorsByUserId(known.id) : []
  const timeout = provider.authenticationOptions?.timeout ?? DEFAULT_WEBAUTHN_TIMEOUT
  const options = await generateAuthenticationOptions({
    ...provider.authenticationOptions,
    timeout,
    rpID: rp.id,
    // Empty means "any discoverable credential": the browser lists the user's passkeys.
    allowCredentials: allow.length ? allow.map(descriptor) : undefined,
    challenge: undefined,
  })
  const state: ChallengeState = { ceremony: "authenticate", ...(known && allow.length && { expectedUserId: known.id }) }
  const cookie = await issueChallenge(ctx, provider.id, options.challenge, state, timeout)
  return { ...json(200, { action: "authenticate", options }), cookies: [cookie] }
}

function descriptor(a: AdapterAuthenticator) {
  return { id: browserCredentialId(a.credentialID), transports: stringToTransports(a.transports) as never }
}

/** The address as the email provider normalises it (`lib/email/normalize.ts`), or `null` when it refuses it. */
function addressOf(value: string): string | null {
  try {
    return normalizeEmail(value)
  } catch (error) {
    if (error instanceof AddressRefused) return null
    throw error
  }
}

/**
 * The stored user with this address: as typed, else lower-cased (how the email provider
 * stores addresses), so the same person is found whichever way they signed up.
 */
export async function findUserByEmail(ctx: RequestContext, email: string): Promise<AdapterUser | null> {
  const adapter = store(ctx.config.stores, "webauthn")
  const exact = await adapter.getUserByEmail(email)
  if (exact || email.toLowerCase() === email) return exact
  return adapter.getUserByEmail(email.toLowerCase())
}
