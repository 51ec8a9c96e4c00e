import {
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server"
import type { AdapterAuthenticator } from "../../adapters.js"
import { WebAuthnVerificationError } from "./errors.js"
import type { WebAuthnConfig } from "./provider-types.js"
import { fromBase64, fromBase64Url, storedCredentialId, stringToTransports, toBase64, transportsToString } from "./encoding.js"
import type { ResolvedRelyingParty } from "./relying-party.js"

/** WebAuthn Level 3 caps credential ids at 1023 bytes; longer ones are refused at registration. */
const MAX_CREDENTIAL_ID_BYTES = 1023

/** A credential as it will be stored, before it has an owner. */
export type NewAuthenticator = Omit<AdapterAuthenticator, "userId">

interface Expected {
  challenge: string
  rp: ResolvedRelyingParty
  provider: WebAuthnConfig
}

/**
 * Parses the posted `data` field: a JSON object with a string `id`. Returns the stored
 * form of that id too, or throws the generic verification error.
 */
export function parseResponse<T extends RegistrationResponseJSON | AuthenticationResponseJSON>(data: unknown): { response: T; credentialID: string } {
  let parsed: unknown
  try {
    parsed = typeof data === "string" ? JSON.parse(data) : undefined
  } catch {
    parsed = undefined
  }
  const id = (parsed as { id?: unknown } | undefined)?.id
  const credentialID = typeof id === "string" ? storedCredentialId(id) : undefined
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed) || !credentialID) {
    throw new WebAuthnVerificationError("The passkey response is not a WebAuthn credential")
  }
  return { response: parsed as T, credentialID }
}

/**
 * Verifies a registration (attestation) response with `@simplewebauthn/server` and turns
 * it into the authenticator to store, encoded the way Auth.js stores it.
 */
export async function verifyRegistration(response: RegistrationResponseJSON, expected: Expected): Promise<NewAuthenticator> {
  refuseCrossOrigin(response)
  const verification = await run(() =>
    verifyRegistrationResponse({
      response,
      expectedChallenge: expected.challenge,
      expectedOrigin: expected.rp.origins,
      expectedRPID: expected.rp.ids,
      expectedType: "webauthn.create",
      requireUserVerification: expected.provider.verifyRegistrationOptions?.requireUserVerification ?? true,
      ...(expected.provider.verifyRegistrationOptions?.supportedAlgorithmIDs && {
        supportedAlgorithmIDs: expected.provider.verifyRegistrationOptions.supportedAlgorithmIDs,
      }),
    }),
  )
  if (!verification.verified) throw new WebAuthnVerificationError("The passkey registration could not be verified")
  const { credential, credentialDeviceType, credentialBackedUp } = verification.registrationInfo
  const idBytes = fromBase64Url(credential.id)
  if (!idBytes || idBytes.length === 0 || idBytes.length > MAX_CREDENTIAL_ID_BYTES) {
    throw new WebAuthnVerificationError("The credential id is empty or longer than 1023 bytes")
  }
  const credentialID = toBase64(idBytes)
  return {
    credentialID,
    // The account of a passkey is the credential itself, as in Auth.js.
    providerAccountId: credentialID,
    credentialPublicKey: toBase64(credential.publicKey),
    counter: credential.counter,
    credentialDeviceType,
    credentialBackedUp,
    transports: transportsToString(response.response?.transports),
  }
}

/**
 * Verifies an authentication (assertion) response against the stored authenticator and
 * returns the authenticator's new signature counter. The library refuses a counter that
 * did not grow when either count is non-zero (a cloned authenticator or a replay).
 */
export async function verifyAuthentication(response: AuthenticationResponseJSON, authenticator: AdapterAuthenticator, expected: Expected): Promise<{ newCounter: number }> {
  refuseCrossOrigin(response)
  const verification = await run(() =>
    verifyAuthenticationResponse({
      response,
      expectedChallenge: expected.challenge,
      expectedOrigin: expected.rp.origins,
      expectedRPID: expected.rp.ids,
      expectedType: "webauthn.get",
      requireUserVerification: expected.provider.verifyAuthenticationOptions?.requireUserVerification ?? true,
      credential: {
        id: response.id,
        publicKey: fromBase64(authenticator.credentialPublicKey),
        counter: authenticator.counter,
        transports: stringToTransports(authenticator.transports) as never,
      },
    }),
  )
  if (!verification.verified) throw new WebAuthnVerificationError("The passkey signature did not verify")
  return { newCounter: verification.authenticationInfo.newCounter }
}

/**
 * Our pages forbid framing, so a ceremony run inside a cross-origin iframe is never ours;
 * the library only checks `crossOrigin` when a `topOrigin` is present.
 */
function refuseCrossOrigin(response: { response?: { clientDataJSON?: unknown } }) {
  const encoded = response.response?.clientDataJSON
  const bytes = typeof encoded === "string" ? fromBase64Url(encoded) : undefined
  let clientData: { crossOrigin?: unknown } | undefined
  try {
    clientData = bytes ? JSON.parse(new TextDecoder().decode(bytes)) : undefined
  } catch {
    clientData = undefined
  }
  if (!clientData || typeof clientData !== "object") throw new WebAuthnVerificationError("clientDataJSON is not JSON")
  if (clientData.crossOrigin === true) throw new WebAuthnVerificationError("The ceremony ran in a cross-origin frame")
}

/**
 * Runs a library verification; what it throws becomes the client-safe error. Its messages
 * quote the received and expected challenges, which are one-time secrets, so long
 * base64url runs are masked before the message reaches the server log.
 */
async function run<T>(verify: () => Promise<T>): Promise<T> {
  try {
    return await verify()
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    throw new WebAuthnVerificationError(`The passkey response was refused: ${redact(message)}`)
  }
}

/** Masks every base64url run of 16 characters or more (challenges, ids, signatures). */
export function redact(message: string): string {
  return message.replace(/[A-Za-z0-9_-]{16,}={0,2}/g, "[redacted]")
}
