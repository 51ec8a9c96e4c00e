import * as o from "oauth4webapi"
import { InvalidEndpoints } from "../../errors.js"
import type { Profile, TokenSet } from "../../base-types.js"
import { callbackFailure } from "./failure.js"
import { internalProvider } from "./internal.js"
import type { OAuthRuntime } from "./provider.js"
import type { ExchangedTokens } from "./token.js"

/** A userinfo answer whose `sub` is not the id_token's (OIDC Core §5.3.2). */
class UserinfoSubjectMismatch extends Error {
  readonly code = "userinfo-sub-mismatch"
  constructor() {
    super("The userinfo sub is not the id_token sub")
    this.name = "UserinfoSubjectMismatch"
  }
}

/**
 * The provider's profile of the user: the verified id_token claims for OIDC (unless
 * `idToken: false`), else the userinfo endpoint or the provider's `userinfo.request`.
 * Whenever an id_token came along, a userinfo `sub` must equal its `sub`; the access token
 * travels in the Authorization header only (RFC 6750 §2.1).
 */
export async function readProfile(rt: OAuthRuntime, exchanged: ExchangedTokens, tokens: TokenSet): Promise<Profile> {
  const { claims } = exchanged
  if (rt.type === "oidc" && rt.provider.idToken !== false && claims) return { ...claims } as Profile
  let profile: Profile
  try {
    profile = await requestProfile(rt, exchanged, tokens)
  } catch (error) {
    throw callbackFailure(error, rt.id, "userinfo")
  }
  if (claims && profile.sub !== undefined && profile.sub !== claims.sub) {
    throw callbackFailure(new UserinfoSubjectMismatch(), rt.id, "userinfo")
  }
  return profile
}

async function requestProfile(rt: OAuthRuntime, { claims, metadata }: ExchangedTokens, tokens: TokenSet): Promise<Profile> {
  const userinfo = typeof rt.provider.userinfo === "object" ? rt.provider.userinfo : undefined
  if (userinfo?.request) {
    const result = await userinfo.request({ tokens, provider: internalProvider(rt, metadata), fetch: rt.fetch })
    return asObject(result)
  }
  if (!metadata.userinfo_endpoint) throw new InvalidEndpoints(`Provider "${rt.id}" has no userinfo endpoint`)
  const url = new URL(metadata.userinfo_endpoint)
  for (const [key, value] of Object.entries(userinfo?.params ?? {})) {
    if (value !== undefined && value !== null) url.searchParams.set(key, typeof value === "object" ? JSON.stringify(value) : String(value))
  }
  if (claims) {
    // An OIDC userinfo endpoint: oauth4webapi checks the content type and the sub.
    const response = await o.userInfoRequest({ ...metadata, userinfo_endpoint: url.href }, rt.client, tokens.access_token!, rt.http)
    return (await o.processUserInfoResponse(metadata, rt.client, claims.sub, response)) as Profile
  }
  // A plain OAuth API (GitHub's /user, say): any JSON object.
  const headers = new Headers({ accept: "application/json" })
  const response = await o.protectedResourceRequest(tokens.access_token!, "GET", url, headers, null, rt.http)
  if (response.status !== 200) throw new Error(`The userinfo endpoint answered ${response.status}`)
  return asObject(await response.json())
}

function asObject(value: unknown): Profile {
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new Error("The userinfo response is not a JSON object")
  return value as Profile
}
