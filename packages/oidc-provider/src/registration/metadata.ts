/**
 * Reading a registration request's client metadata (RFC 7591 §2) into what is stored, with
 * the limits of a client that anyone may have written: lengths, URL schemes, only the
 * grants and auth methods a self-registered client may use. Unknown fields are ignored
 * (§2); fields of the provider's own trust (`firstParty`) are never read from the request.
 * @module
 */
import { OAuthError } from "../errors.js"
import { isLoopback } from "../options.js"
import type { ClientAuthMethod, GrantType } from "../store/types.js"
import type { RegistrationPolicy } from "./options.js"

/** The whole request, as JSON: metadata is a few hundred bytes; more is abuse. */
export const MAX_METADATA_BYTES = 16 * 1024
const MAX_URIS = 10
const MAX_URI_LENGTH = 2000
const MAX_NAME_LENGTH = 100

const METHODS: readonly ClientAuthMethod[] = ["none", "client_secret_basic", "client_secret_post"]
const GRANTS: readonly GrantType[] = ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"]

/** What a registration asked for, checked. */
export interface RequestedClient {
  tokenEndpointAuthMethod: ClientAuthMethod
  redirectUris: string[]
  postLogoutRedirectUris: string[]
  grantTypes: GrantType[]
  scope: string
  name?: string
  logoUri?: string
  clientUri?: string
  policyUri?: string
  tosUri?: string
}

const bad = (description: string) => new OAuthError("invalid_client_metadata", description)
const badRedirect = (description: string) => new OAuthError("invalid_redirect_uri", description)

/** A redirect URI a registered client may have: https, loopback http (RFC 8252 §7.3) or, by policy, a private-use scheme (§7.1). */
function redirectUri(value: unknown, policy: RegistrationPolicy, field: string): string {
  if (typeof value !== "string" || !value || value.length > MAX_URI_LENGTH) throw badRedirect(`${field}: each must be a URI of at most ${MAX_URI_LENGTH} characters`)
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw badRedirect(`${field}: ${JSON.stringify(value.slice(0, 100))} is not an absolute URI`)
  }
  if (value.includes("#")) throw badRedirect(`${field}: a redirect URI must not have a fragment`)
  if (url.username || url.password) throw badRedirect(`${field}: a redirect URI must not hold credentials`)
  if (url.protocol === "https:") return value
  if (url.protocol === "http:" && isLoopback(url.hostname)) return value
  // Reverse-domain private-use schemes only: `javascript:`, `data:`, `file:` have no dot.
  if (policy.privateUseSchemes && /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/.test(url.protocol)) return value
  throw badRedirect(`${field}: ${JSON.stringify(value.slice(0, 100))} must be https, http on a loopback address${policy.privateUseSchemes ? " or a reverse-domain private-use scheme" : ""}`)
}

/** A page about the client shown to people: https only (never `javascript:`, `data:` or plain http). */
function infoUri(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== "string" || value.length > MAX_URI_LENGTH) throw bad(`${field} must be a URI of at most ${MAX_URI_LENGTH} characters`)
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw bad(`${field} is not an absolute URI`)
  }
  if (url.protocol !== "https:" || url.username || url.password) throw bad(`${field} must be an https URL`)
  return value
}

function stringList(value: unknown, field: string, max: number): string[] | undefined {
  if (value === undefined || value === null) return undefined
  if (!Array.isArray(value) || value.length > max || value.some((v) => typeof v !== "string")) throw bad(`${field} must be a list of at most ${max} strings`)
  return value as string[]
}

/**
 * Checks a registration request's metadata against `policy`.
 *
 * @example
 * ```ts
 * const requested = readClientMetadata({ redirect_uris: ["https://app.example/cb"], token_endpoint_auth_method: "none" }, policy)
 * ```
 * @throws OAuthError `invalid_client_metadata`, `invalid_redirect_uri` or `invalid_software_statement`.
 */
export function readClientMetadata(body: Record<string, unknown>, policy: RegistrationPolicy): RequestedClient {
  if (JSON.stringify(body).length > MAX_METADATA_BYTES) throw bad(`The client metadata must be at most ${MAX_METADATA_BYTES} bytes`)
  // Signed statements from a software publisher are not verified here: refusing beats ignoring
  // one, since the client may count on its contents having been applied.
  if (body.software_statement !== undefined) throw new OAuthError("invalid_software_statement", "Software statements are not supported")
  if (body.jwks !== undefined || body.jwks_uri !== undefined) throw bad("Key sets are not accepted at registration: use client_secret_basic, client_secret_post or none")

  const method = (body.token_endpoint_auth_method ?? "client_secret_basic") as ClientAuthMethod
  if (!METHODS.includes(method)) throw bad(`token_endpoint_auth_method must be one of ${METHODS.join(", ")}`)

  const grantTypes = (stringList(body.grant_types, "grant_types", 5) ?? ["authorization_code"]) as GrantType[]
  if (!grantTypes.length || grantTypes.some((g) => !GRANTS.includes(g))) throw bad(`grant_types must hold only ${GRANTS.join(", ")}`)
  const responseTypes = stringList(body.response_types, "response_types", 3) ?? (grantTypes.includes("authorization_code") ? ["code"] : [])
  if (responseTypes.some((r) => r !== "code")) throw bad('response_types may hold only "code"')
  if (responseTypes.includes("code") !== grantTypes.includes("authorization_code")) throw bad('response_types "code" goes with grant_types "authorization_code" (RFC 7591 §2.1)')

  const redirects = stringList(body.redirect_uris, "redirect_uris", MAX_URIS) ?? []
  if (grantTypes.includes("authorization_code") && !redirects.length) throw badRedirect("redirect_uris needs at least one URI for the authorization_code grant")
  const redirectUris = redirects.map((u, i) => redirectUri(u, policy, `redirect_uris[${i}]`))
  const logout = (stringList(body.post_logout_redirect_uris, "post_logout_redirect_uris", MAX_URIS) ?? []).map((u, i) => redirectUri(u, policy, `post_logout_redirect_uris[${i}]`))

  const asked = body.scope
  if (asked !== undefined && (typeof asked !== "string" || asked.length > 1000)) throw bad("scope must be a space-separated string")
  const scopes = asked === undefined ? policy.scopes : [...new Set(asked.split(" ").filter(Boolean))]
  for (const s of scopes) if (!policy.scopes.includes(s)) throw bad(`scope "${s.slice(0, 50)}" may not be registered (allowed: ${policy.scopes.join(" ")})`)

  let name: string | undefined
  if (body.client_name !== undefined && body.client_name !== null) {
    // Shown on the consent page: printable, short, no control or bidirectional-override characters.
    if (typeof body.client_name !== "string" || !body.client_name.trim() || body.client_name.length > MAX_NAME_LENGTH || /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u.test(body.client_name)) {
      throw bad(`client_name must be a plain text name of at most ${MAX_NAME_LENGTH} characters`)
    }
    name = body.client_name.trim()
  }
  const logoUri = infoUri(body.logo_uri, "logo_uri")
  const clientUri = infoUri(body.client_uri, "client_uri")
  const policyUri = infoUri(body.policy_uri, "policy_uri")
  const tosUri = infoUri(body.tos_uri, "tos_uri")
  return {
    tokenEndpointAuthMethod: method,
    redirectUris,
    postLogoutRedirectUris: logout,
    grantTypes,
    scope: scopes.join(" "),
    ...(name && { name }),
    ...(logoUri && { logoUri }),
    ...(clientUri && { clientUri }),
    ...(policyUri && { policyUri }),
    ...(tosUri && { tosUri }),
  }
}
