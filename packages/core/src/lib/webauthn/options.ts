import { generateAuthenticationOptions, generateRegistrationOptions } from "@simplewebauthn/server"
import type { AdapterAuthenticator, AdapterUser } from "../../adapters.js"
import { DEFAULT_WEBAUTHN_TIMEOUT, type WebAuthnConfig } from "./provider-types.js"
import type { ResponseInternal } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import { privateJsonHeaders } from "../http/response.js"
import { sessionStrategy } from "../session/index.js"
import { issueChallenge, type ChallengeState } from "./challenge.js"
import { browserCredentialId, stringToTransports } from "./encoding.js"
import { hookOptions, hookRequest, relyingParty } from "./relying-party.js"
import { store } from "../config/stores.js"
import { AddressRefused, normalizeEmail } from "../email/normalize.js"

/** Who is asking for options: the signed-in user, else an address to sign up with, if any. */
interface Requester {
  signedIn: AdapterUser | null
  /** The address to register, normalised; `undefined` when none was given. */
  email: string | undefined
}

const json = (status: number, body: unknown): ResponseInternal => ({ status, headers: privateJsonHeaders, body })

/**
 * `GET /webauthn-options/:provider?action=register|authenticate[&email=…]`.
 *
 * Signed in: `register` by default (adding a passkey), or `authenticate` with the user's own
 * passkeys listed. Not signed in: `authenticate` by default, always the same options — no
 * `allowCredentials`, whatever `email` says — so the answer tells nobody whether an address
 * has an account; the browser offers the passkeys it holds for the site. Signing up is an
 * explicit `action=register` with an email, answered alike for a new and a taken address:
 * the store is not asked here, and the callback refuses a taken one (`AccountNotLinked`), so
 * a passkey is never added to someone else's account. An app's `getUserInfo` hook may choose
 * `register` for a caller it says does not exist (`exists: false`), as in Auth.js.
 * Refusals are `400 {"error": …}`, like Auth.js.
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
  const action = requested ?? (signedIn || info?.isNew ? "register" : "authenticate")
  if (action === "authenticate") return authentication(ctx, provider, signedIn)
  const typed = (info ? info.email : ctx.query.email)?.trim() || undefined
  // One rule for addresses: the email provider's. A passkey sign-up stores the address that
  // provider would store, so a later email link finds the same user.
  const email = typed === undefined ? undefined : addressOf(typed)
  if (email === null) return json(400, { error: "Invalid email" })
  return registration(ctx, provider, { signedIn, email })
}

/** The app's `getUserInfo` answer, reduced to what is used: an email, and whether the hook says the caller is new (`exists: false`). */
async function userInfo(ctx: RequestContext, provider: WebAuthnConfig): Promise<{ email: string | undefined; isNew: boolean } | undefined> {
  if (typeof provider.getUserInfo !== "function") return undefined
  const answer = await provider.getUserInfo(hookOptions(ctx, provider), hookRequest(ctx))
  if (!answer || typeof answer !== "object") return { email: undefined, isNew: false }
  const user = (answer.user ?? {}) as { email?: unknown }
  return { email: typeof user.email === "string" ? user.email : undefined, isNew: answer.exists === false }
}

async function registration(ctx: RequestContext, provider: WebAuthnConfig, { signedIn, email }: Requester): Promise<ResponseInternal> {
  let registrant: ChallengeState["registrant"]
  let user: { id?: string; email: string; name?: string | null }
  if (signedIn) {
    registrant = { userId: signedIn.id }
    user = signedIn
  } else if (email) {
    // Whether the address is taken is not looked up: the options for a new and a taken
    // address are alike, and the callback refuses a taken one before anything is stored.
    registrant = { email }
    user = { email }
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

async function authentication(ctx: RequestContext, provider: WebAuthnConfig, signedIn: AdapterUser | null): Promise<ResponseInternal> {
  const rp = await relyingParty(ctx, provider)
  // Only a signed-in user's passkeys are listed (re-authenticating): listing those of an
  // address someone typed would tell them whether it has an account, and which passkeys.
  const allow = signedIn ? await store(ctx.config.stores, "webauthn").listAuthenticatorsByUserId(signedIn.id) : []
  const timeout = provider.authenticationOptions?.timeout ?? DEFAULT_WEBAUTHN_TIMEOUT
  const options = await generateAuthenticationOptions({
    ...provider.authenticationOptions,
    timeout,
    rpID: rp.id,
    // Empty means "any discoverable credential": the browser lists the user's passkeys.
    allowCredentials: allow.length ? allow.map(descriptor) : undefined,
    challenge: undefined,
  })
  const state: ChallengeState = { ceremony: "authenticate", ...(signedIn && allow.length && { expectedUserId: signedIn.id }) }
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
