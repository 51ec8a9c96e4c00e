import * as o from "oauth4webapi"
import { InvalidConfig, InvalidEndpoints } from "../../errors.js"
import type { OAuthConfig } from "../../providers/oauth.js"
import { configuredEndpoint, hasOwnUserinfo } from "./config-check.js"
import { assertSecureUrl } from "./http.js"
import type { OAuthRuntime } from "./provider.js"

/** What discovery needs of a provider's runtime. */
export type DiscoveryClient = Pick<OAuthRuntime, "provider" | "id" | "discovery" | "fetch" | "policy" | "http">

/** How long discovered metadata is reused before it is fetched again. */
const DISCOVERY_TTL = 60 * 60 * 1000

/**
 * The provider's authorization server metadata. Discovered from `wellKnown` or
 * `<issuer>/.well-known/openid-configuration` (OIDC always; OAuth when an endpoint is
 * missing), then overlaid with explicitly configured endpoints, which win. Failures are
 * not cached, so a provider outage heals on the next attempt.
 */
export function authorizationServer(rt: DiscoveryClient): Promise<o.AuthorizationServer> {
  const now = Date.now()
  const cache = rt.discovery
  const hit = cache.get(rt.provider)
  if (hit && hit.expires > now) return hit.metadata
  const metadata = resolve(rt)
  const entry = { metadata, expires: now + DISCOVERY_TTL }
  cache.set(rt.provider, entry)
  metadata.catch(() => {
    if (cache.get(rt.provider) === entry) cache.delete(rt.provider)
  })
  return metadata
}

async function resolve(rt: DiscoveryClient): Promise<o.AuthorizationServer> {
  const { provider } = rt
  const explicit = {
    authorization_endpoint: configuredEndpoint(provider.authorization, "authorization endpoint", provider.id)?.href,
    token_endpoint: configuredEndpoint(provider.token, "token endpoint", provider.id)?.href,
    userinfo_endpoint: configuredEndpoint(provider.userinfo, "userinfo endpoint", provider.id)?.href,
  }
  const canDiscover = !!(provider.issuer || provider.wellKnown)
  const missing = !explicit.authorization_endpoint || !explicit.token_endpoint || (provider.type === "oauth" && !explicit.userinfo_endpoint && !hasOwnUserinfo(provider))
  if (canDiscover && (provider.type === "oidc" || missing)) {
    const discovered = await discover(rt)
    return withExplicit(discovered, explicit)
  }
  if (missing && !explicit.authorization_endpoint) {
    throw new InvalidEndpoints(`Provider "${provider.id}" has no authorization endpoint and no issuer to discover it from`)
  }
  // No discovery: a synthetic metadata object. Its issuer is only compared with an RFC 9207
  // `iss` response parameter or an id_token `iss`; without a configured issuer neither can
  // match, so such a provider must not send them.
  return withExplicit({ issuer: provider.issuer ?? `urn:portcullis:no-issuer:${provider.id}` }, explicit)
}

async function discover(rt: DiscoveryClient): Promise<o.AuthorizationServer> {
  const { issuer, wellKnown } = rt.provider
  let response: Response
  if (wellKnown) {
    response = await rt.fetch(parseUrl(wellKnown, "wellKnown", rt.id).href, { headers: { accept: "application/json" } })
  } else {
    const url = parseUrl(issuer!, "issuer", rt.id)
    // oauth4webapi refuses http on its own, but with a less telling error.
    assertSecureUrl(url, rt.policy, "issuer")
    response = await o.discoveryRequest(url, { ...rt.http, algorithm: "oidc" })
  }
  // With only `wellKnown`, the document names the issuer; the URL was configured, and the
  // document came over TLS from it.
  const documented = await documentIssuer(response)
  const expected = issuer ?? documented
  if (!expected) throw new InvalidEndpoints(`Provider "${rt.id}": the discovery document has no issuer`)
  const template = issuer && documented ? tenantTemplate(documented, issuer) : undefined
  // oauth4webapi compares normalised URLs (so `https://a.example` equals `https://a.example/`);
  // OIDC Discovery §4.3 wants the exact string, which also rules out case tricks.
  if (documented !== undefined && documented !== expected && !template) {
    throw new InvalidEndpoints(
      `Provider "${rt.id}": the discovery document's issuer ${JSON.stringify(documented)} is not exactly the configured issuer ${JSON.stringify(expected)}`,
    )
  }
  const metadata = await o.processDiscoveryResponse(parseUrl(template ?? expected, "issuer", rt.id), response)
  if (!template) return metadata
  return { ...metadata, [TENANTS]: { template, perTenant: new Map() } } as o.AuthorizationServer
}

/** The issuer a discovery document names, read from a copy (oauth4webapi reads the original). */
async function documentIssuer(response: Response): Promise<string | undefined> {
  const body = (await response.clone().json().catch(() => undefined)) as { issuer?: unknown } | undefined
  return typeof body?.issuer === "string" ? body.issuer : undefined
}

function withExplicit(metadata: o.AuthorizationServer, explicit: Record<string, string | undefined>): o.AuthorizationServer {
  const out: Record<string, unknown> = { ...metadata }
  for (const [key, value] of Object.entries(explicit)) if (value) out[key] = value
  return out as unknown as o.AuthorizationServer
}

function parseUrl(value: string, what: string, providerId: string): URL {
  try {
    return new URL(value)
  } catch {
    throw new InvalidConfig(`Provider "${providerId}": the ${what} is not an absolute URL`)
  }
}

/*
 * Multi-tenant issuers. Microsoft Entra ID's `common`, `organizations` and `consumers`
 * endpoints publish the template issuer `https://login.microsoftonline.com/{tenantid}/v2.0`,
 * and each id_token is issued by the user's own tenant. The exact-issuer rule above then
 * holds per tenant: the expected issuer is the template with the token's `tid`.
 */
/**
 * The template and per-tenant metadata ride on the metadata object itself (a symbol key:
 * oauth4webapi ignores it, and `{ ...metadata }` copies carry it along), so they live and
 * die with the configuration's discovery cache instead of a module-level map.
 */
const TENANTS = Symbol("portcullis.tenants")
type Tenants = { template: string; perTenant: Map<string, o.AuthorizationServer> }
const tenantsOf = (metadata: o.AuthorizationServer) => (metadata as o.AuthorizationServer & { [TENANTS]?: Tenants })[TENANTS]
const TENANT_SEGMENTS = ["common", "organizations", "consumers"]
const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const TENANT_CACHE_LIMIT = 1000

function tenantTemplate(discovered: string, configured: string): string | undefined {
  if (!discovered.includes("{tenantid}")) return undefined
  return TENANT_SEGMENTS.some((segment) => discovered.replace("{tenantid}", segment) === configured) ? discovered : undefined
}

/**
 * The metadata to validate an id_token against. For a multi-tenant issuer it is the
 * metadata with the issuer of tenant `tid` (the unverified `tid` only chooses which issuer
 * to expect; the token must then verify against it in full). Otherwise `metadata` itself.
 */
export function metadataForTenant(metadata: o.AuthorizationServer, tid: unknown): o.AuthorizationServer {
  const tenants = tenantsOf(metadata)
  if (!tenants) return metadata
  if (typeof tid !== "string" || !TENANT_ID.test(tid)) {
    throw new InvalidEndpoints("The id_token of a multi-tenant issuer has no valid tid claim")
  }
  let perTenant = tenants.perTenant.get(tid)
  if (!perTenant) {
    if (tenants.perTenant.size >= TENANT_CACHE_LIMIT) tenants.perTenant.clear()
    perTenant = { ...metadata, issuer: tenants.template.replace("{tenantid}", tid) }
    tenants.perTenant.set(tid, perTenant)
  }
  return perTenant
}

/** Whether the metadata's issuer is a per-tenant template. */
export function isTenantTemplate(metadata: o.AuthorizationServer): boolean {
  return tenantsOf(metadata) !== undefined
}
