import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server"
import type { AdapterAccount, AdapterUser } from "../../adapters.js"
import { AccountNotLinked, MethodNotAllowed, NotSignedIn, StepUpRequired } from "../../errors.js"
import { WebAuthnVerificationError } from "../webauthn/errors.js"
import type { WebAuthnConfig } from "../webauthn/provider-types.js"
import type { ResponseInternal } from "../../base-types.js"
import { resolveCallbackUrl, type RequestContext } from "../context.js"
import { verifyCsrf } from "../csrf.js"
import { admitSignIn, createUser, establishSession, runSignInCallback } from "../login.js"
import { sessionStrategy } from "../session/index.js"
import { reauthenticateUrl, requireStepUp } from "../step-up/gate.js"
import { claimChallenge, openChallenge } from "../webauthn/challenge.js"
import { checkWebAuthnConfig } from "../webauthn/config-check.js"
import { findUserByEmail, webauthnOptions } from "../webauthn/options.js"
import { webauthnPageScripts } from "../webauthn/page-script.js"
import { relyingParty } from "../webauthn/relying-party.js"
import { parseResponse, verifyAuthentication, verifyRegistration } from "../webauthn/verify.js"
import type { ProviderKind } from "./kind.js"
import { store } from "../config/stores.js"
import { notify } from "../notify/index.js"
import { audit } from "../audit/index.js"

/**
 * WebAuthn: `GET /webauthn-options/:id` issues a challenge; `POST /callback/:id` with
 * `action` and `data` finishes a registration or an authentication. Unlike Auth.js, the
 * callback is CSRF-checked (every client sends the token anyway).
 */
export const webauthnKind: ProviderKind<WebAuthnConfig> = {
  options: webauthnOptions,
  check: (providers) => checkWebAuthnConfig(providers),
  pageScripts: webauthnPageScripts,
  async callback(ctx, provider) {
    if (ctx.method !== "POST") throw new MethodNotAllowed("WebAuthn sign-in is a POST to /callback/<id>")
    await verifyCsrf(ctx)
    await ctx.config.rateLimit?.checkAddress("webauthn", ctx.clientAddress)
    const action = ctx.body?.action
    if (action === "register") return register(ctx, provider)
    if (action === "authenticate") return authenticate(ctx, provider)
    throw new WebAuthnVerificationError('The action must be "register" or "authenticate"')
  },
}

async function register(ctx: RequestContext, provider: WebAuthnConfig): Promise<ResponseInternal> {
  const adapter = store(ctx.config.stores, "webauthn")
  const { response } = parseResponse<RegistrationResponseJSON>(ctx.body?.data)
  const opened = await openChallenge(ctx, provider.id, "register")
  const registrant = opened.state.registrant
  if (!registrant) throw new WebAuthnVerificationError("The registration challenge names nobody")
  // Adding a passkey to a signed-in account is a sensitive action (docs/step-up.md): a
  // stolen session alone must not plant the thief's passkey. Checked before the challenge
  // is spent, so the user can step up and try again.
  if ("userId" in registrant) {
    const refused = await stepUpRefusal(ctx)
    if (refused) return refused
  }
  const authenticator = await verifyRegistration(response, { challenge: opened.challenge, rp: await relyingParty(ctx, provider), provider })
  // Claimed only now that the attestation verified, and before anything is written.
  await claimChallenge(ctx, opened)

  // T61: a credential id is registered once, to one user.
  const taken = (await adapter.getAuthenticator(authenticator.credentialID)) ?? (await adapter.getAccount(authenticator.providerAccountId, provider.id))
  if (taken) throw new WebAuthnVerificationError("This credential is already registered")

  // Who the passkey is for is re-checked now: the session or the address may have changed
  // since the options were issued.
  const current = await signedInUser(ctx)
  let user: AdapterUser | { email: string; name?: string }
  let isNewUser = false
  if ("userId" in registrant) {
    if (!current || current.id !== registrant.userId) throw new AccountNotLinked("The passkey was started for another session")
    user = current
  } else {
    if (current) throw new AccountNotLinked("Signed in: add a passkey to the current account instead")
    if (await findUserByEmail(ctx, registrant.email)) throw new AccountNotLinked("An account with this email exists; sign in to add a passkey")
    user = { email: registrant.email, ...(registrant.name && { name: registrant.name }) }
    isNewUser = true
  }

  const account = { provider: provider.id, type: "webauthn" as const, providerAccountId: authenticator.providerAccountId }
  const redirect = await runSignInCallback(ctx, { user, account })
  if (redirect) return { redirect }

  // The gates before anything is written: a refusal leaves no user (a sign-up's has no id
  // yet) and no passkey or account.
  await admitSignIn(ctx, { ...("id" in user && { userId: user.id }), email: user.email, provider: provider.id })
  const owner = "id" in user ? user : await createUser(ctx, { email: user.email, emailVerified: null, name: user.name ?? null, image: null })
  // The authenticator goes first: its unique credential id settles a race between two
  // registrations of one credential before any account row is written.
  await adapter.createAuthenticator({ ...authenticator, userId: owner.id })
  const linked: AdapterAccount = { ...account, userId: owner.id }
  await adapter.linkAccount(linked)
  await ctx.config.events.linkAccount({ user: owner, account: linked, profile: owner })
  await audit(ctx, { type: "accountLinked", outcome: "success", userId: owner.id, method: "webauthn", provider: linked.provider })
  if (!isNewUser) await notify(ctx, owner, "passkeyAdded")
  return establishSession(ctx, { user: owner, account: linked, isNewUser })
}

async function authenticate(ctx: RequestContext, provider: WebAuthnConfig): Promise<ResponseInternal> {
  const adapter = store(ctx.config.stores, "webauthn")
  const { response, credentialID } = parseResponse<AuthenticationResponseJSON>(ctx.body?.data)
  const opened = await openChallenge(ctx, provider.id, "authenticate")

  // T62: an unknown credential, or one that is not the named user's, fails like a bad signature.
  const authenticator = await adapter.getAuthenticator(credentialID)
  if (!authenticator || (opened.state.expectedUserId !== undefined && authenticator.userId !== opened.state.expectedUserId)) {
    throw new WebAuthnVerificationError("Unknown credential")
  }
  const { newCounter } = await verifyAuthentication(response, authenticator, { challenge: opened.challenge, rp: await relyingParty(ctx, provider), provider })
  // The challenge is claimed only after the signature verified (a failed attempt leaves it
  // to the genuine response), and atomically, so a valid assertion signs in exactly once.
  await claimChallenge(ctx, opened)
  if (newCounter !== authenticator.counter) await adapter.updateAuthenticatorCounter(authenticator.credentialID, newCounter)

  const account = await adapter.getAccount(authenticator.providerAccountId, provider.id)
  const user = account && account.userId === authenticator.userId ? await adapter.getUser(account.userId) : null
  if (!account || !user) throw new WebAuthnVerificationError("The credential's account or user is gone")

  const current = await sessionStrategy(ctx).currentUserId(ctx)
  if (current && current !== user.id) throw new AccountNotLinked("The passkey belongs to another user than the signed-in one")

  const redirect = await runSignInCallback(ctx, { user, account })
  if (redirect) return { redirect }
  return establishSession(ctx, { user, account, isNewUser: false })
}

/**
 * `null` when the session stepped up recently (or there is none: the registrant check
 * refuses that as ever); else where the browser goes to step up (back to this page afterwards).
 */
async function stepUpRefusal(ctx: RequestContext): Promise<ResponseInternal | null> {
  try {
    await requireStepUp(ctx)
    return null
  } catch (error) {
    if (error instanceof NotSignedIn) return null
    if (!(error instanceof StepUpRequired)) throw error
    return { redirect: reauthenticateUrl(ctx, await resolveCallbackUrl(ctx)) }
  }
}

async function signedInUser(ctx: RequestContext): Promise<AdapterUser | null> {
  const id = await sessionStrategy(ctx).currentUserId(ctx)
  return id ? store(ctx.config.stores, "webauthn").getUser(id) : null
}
