/**
 * Managing an organization's SSO: its connections, domains and SCIM tokens. The same
 * operations back the JSON routes and the server functions (`extensions.sso.*`). Only an
 * organization's owners and admins manage them; anyone else gets the 404 a missing
 * organization gets, so ids can't be probed. Changes that open or close ways in (a connection,
 * a SCIM token, requiring SSO for a domain) need a recent re-authentication (step-up).
 * @module
 */
import { ExtensionRequestError, type ExtensionSession, type ExtensionTools } from "@portcullis/core/extension"
import { createVerificationToken, normalizeDomain, verificationRecord } from "./domains.js"
import type { SsoLocals } from "./locals.js"
import { oidcRedirectUri } from "./oidc.js"
import { readCapped } from "./capped.js"
import { fetchableHost } from "./outbound.js"
import { assignableRole, checkRules } from "./roles.js"
import { fetchIdpMetadata, generateSpKey, parseIdpMetadata } from "./saml/index.js"
import { samlAcsUrl, samlEntityId } from "./saml-connection.js"
import { hashScimToken, newScimToken } from "./scim/auth.js"
import type { Connection, Domain, RoleRule, SamlConnectionSettings, ScimToken } from "./store/types.js"

/** Roles of an organization that manage its SSO. */
const MANAGERS = new Set(["owner", "admin"])
/** Connections an organization may have: a few IdPs, never a store-filling loop. */
export const MAX_CONNECTIONS = 20
export const MAX_DOMAINS = 50
export const MAX_SCIM_TOKENS = 10

/** What creating or changing a connection takes. */
export interface ConnectionInput {
  kind: "oidc" | "saml"
  /** Shown on the sign-in page's button. */
  name: string
  enabled?: boolean
  oidc?: { issuer: string; clientId: string; clientSecret?: string; scope?: string }
  /** The IdP's metadata (`metadataXml` or `metadataUrl`), or its fields one by one. */
  saml?: Partial<SamlConnectionSettings> & { metadataXml?: string }
  roleRules?: RoleRule[]
  defaultRole?: string
}

/** A connection as its managers see it: never a client secret or the SP's private key. */
export interface ConnectionView {
  id: string
  organizationId: string
  kind: "oidc" | "saml"
  name: string
  enabled: boolean
  oidc?: { issuer: string; clientId: string; scope: string | null; hasClientSecret: boolean; redirectUri: string }
  saml?: { idpEntityId: string; ssoUrl: string; certificates: number; metadataUrl: string | null; allowIdpInitiated: boolean; encryptAssertions: boolean; spEntityId: string; acsUrl: string; spMetadataUrl: string }
  roleRules: RoleRule[]
  defaultRole: string
  scimBaseUrl: string
  createdAt: string
}

/** A domain claim as its managers see it, with the TXT record that proves it. */
export interface DomainView {
  domain: string
  verified: boolean
  verifiedAt: string | null
  requireSso: boolean
  connectionId: string | null
  record: { name: string; type: "TXT"; value: string }
}

const text = (value: unknown, max: number, what: string): string => {
  if (typeof value !== "string" || !value.trim() || value.length > max) throw new ExtensionRequestError("invalid-input", `${what} is required (at most ${max} characters)`, 422)
  return value.trim()
}

const httpsUrl = (value: unknown, what: string): string => {
  const raw = text(value, 2048, what)
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ExtensionRequestError("invalid-input", `${what} must be a URL`, 422)
  }
  const loopback = url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]"
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) throw new ExtensionRequestError("invalid-input", `${what} must be an https URL`, 422)
  return url.href.replace(/\/$/, url.pathname === "/" ? "" : "/")
}

/** An https URL the server itself fetches (metadata, an issuer's discovery): never an internal address. */
const fetchedUrl = (value: unknown, what: string): string => {
  const url = httpsUrl(value, what)
  if (!fetchableHost(new URL(url))) throw new ExtensionRequestError("invalid-input", `${what} must not name an internal or reserved address`, 422)
  return url
}

export function viewOf(authUrl: string, connection: Connection): ConnectionView {
  const { oidc, saml } = connection
  return {
    id: connection.id,
    organizationId: connection.organizationId,
    kind: connection.kind,
    name: connection.name,
    enabled: connection.enabled,
    ...(oidc && { oidc: { issuer: oidc.issuer, clientId: oidc.clientId, scope: oidc.scope ?? null, hasClientSecret: oidc.clientSecret !== undefined, redirectUri: oidcRedirectUri(authUrl, connection) } }),
    ...(saml && {
      saml: {
        idpEntityId: saml.idpEntityId,
        ssoUrl: saml.ssoUrl,
        certificates: saml.certificates.length,
        metadataUrl: saml.metadataUrl ?? null,
        allowIdpInitiated: saml.allowIdpInitiated === true,
        encryptAssertions: saml.encryptAssertions === true,
        spEntityId: samlEntityId(authUrl, connection),
        acsUrl: samlAcsUrl(authUrl, connection),
        spMetadataUrl: samlEntityId(authUrl, connection),
      },
    }),
    roleRules: connection.roleRules,
    defaultRole: connection.defaultRole,
    scimBaseUrl: `${authUrl}/sso/scim/${encodeURIComponent(connection.id)}/v2`,
    createdAt: connection.createdAt.toISOString(),
  }
}

export function domainView(domain: Domain): DomainView {
  const record = verificationRecord(domain.domain, domain.token)
  return {
    domain: domain.domain,
    verified: domain.verifiedAt !== null,
    verifiedAt: domain.verifiedAt?.toISOString() ?? null,
    requireSso: domain.requireSso,
    connectionId: domain.connectionId,
    record: { name: record.name, type: "TXT", value: record.value },
  }
}

/** A discovery document is a few kilobytes; an IdP streaming more is broken or hostile. */
const DISCOVERY_MAX_BYTES = 256 * 1024

const randomId = (bytes = 16) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url")

/** The operations of one call, bound to its tools (session, audit) and the configuration's locals. */
export function ssoOperations(tools: ExtensionTools, locals: SsoLocals) {
  const { store, organizations } = locals
  const notFound = () => new ExtensionRequestError("not-found", "No such organization, or you do not manage it", 404)

  /** The caller, when they manage `organizationId`; with `stepUp`, re-authenticated recently. */
  async function manager(organizationId: unknown, event: string, stepUp = false): Promise<ExtensionSession> {
    const session = await tools.requireSession(stepUp ? { stepUp: true } : undefined)
    const membership = typeof organizationId === "string" && organizationId.length <= 128 ? await organizations.getMembership(organizationId, session.userId) : null
    if (!membership || !MANAGERS.has(membership.role)) {
      await tools.audit({ type: event, outcome: "failure", userId: session.userId, reason: membership ? "forbidden" : "not-member" })
      throw notFound()
    }
    return session
  }

  async function connectionIn(organizationId: string, connectionId: unknown): Promise<Connection> {
    const connection = typeof connectionId === "string" && connectionId.length <= 64 ? await store.getConnection(connectionId) : null
    if (!connection || connection.organizationId !== organizationId) throw new ExtensionRequestError("unknown-connection", "No such SSO connection", 404)
    return connection
  }

  async function samlSettings(input: NonNullable<ConnectionInput["saml"]>, previous?: SamlConnectionSettings): Promise<SamlConnectionSettings> {
    let fromMetadata: Pick<SamlConnectionSettings, "idpEntityId" | "ssoUrl" | "sloUrl" | "certificates"> | undefined
    if (typeof input.metadataXml === "string") fromMetadata = parseIdpMetadata(input.metadataXml)
    else if (typeof input.metadataUrl === "string") fromMetadata = await fetchIdpMetadata(fetchedUrl(input.metadataUrl, "saml.metadataUrl"), locals.fetch)
    const certificates = fromMetadata?.certificates ?? input.certificates ?? previous?.certificates
    if (!Array.isArray(certificates) || certificates.length === 0 || certificates.length > 4 || !certificates.every((c) => typeof c === "string" && c.length < 16_384)) {
      throw new ExtensionRequestError("invalid-input", "saml needs the IdP's signing certificates (one to four; two during a rollover), or its metadata", 422)
    }
    const sloUrl = fromMetadata?.sloUrl ?? input.sloUrl ?? previous?.sloUrl
    const metadataUrl = input.metadataUrl ?? previous?.metadataUrl
    return {
      idpEntityId: text(fromMetadata?.idpEntityId ?? input.idpEntityId ?? previous?.idpEntityId, 1024, "saml.idpEntityId"),
      ssoUrl: httpsUrl(fromMetadata?.ssoUrl ?? input.ssoUrl ?? previous?.ssoUrl, "saml.ssoUrl"),
      ...(sloUrl && { sloUrl: httpsUrl(sloUrl, "saml.sloUrl") }),
      certificates,
      ...(metadataUrl && { metadataUrl }),
      allowIdpInitiated: (input.allowIdpInitiated ?? previous?.allowIdpInitiated) === true,
      encryptAssertions: (input.encryptAssertions ?? previous?.encryptAssertions) === true,
      allowSha1: (input.allowSha1 ?? previous?.allowSha1) === true,
    }
  }

  async function build(organizationId: string, input: ConnectionInput, previous?: Connection): Promise<Connection> {
    if (!input || typeof input !== "object") throw new ExtensionRequestError("invalid-input", "A connection is required", 422)
    const kind = previous?.kind ?? input.kind
    if (kind !== "oidc" && kind !== "saml") throw new ExtensionRequestError("invalid-input", 'kind must be "oidc" or "saml"', 422)
    const base = {
      id: previous?.id ?? randomId(),
      organizationId,
      kind,
      name: text(input.name ?? previous?.name, 100, "name"),
      enabled: input.enabled ?? previous?.enabled ?? true,
      roleRules: input.roleRules !== undefined ? checkRules(input.roleRules) : (previous?.roleRules ?? []),
      defaultRole: input.defaultRole !== undefined ? assignableRole(input.defaultRole, "defaultRole") : (previous?.defaultRole ?? "member"),
      createdAt: previous?.createdAt ?? new Date(),
    }
    if (kind === "oidc") {
      const given = input.oidc ?? previous?.oidc
      if (!given) throw new ExtensionRequestError("invalid-input", "oidc needs issuer and clientId", 422)
      const secret = input.oidc?.clientSecret ?? previous?.oidc?.clientSecret
      return {
        ...base,
        oidc: {
          issuer: fetchedUrl(given.issuer, "oidc.issuer"),
          clientId: text(given.clientId, 512, "oidc.clientId"),
          ...(secret !== undefined && { clientSecret: text(secret, 1024, "oidc.clientSecret") }),
          ...(given.scope !== undefined && { scope: text(given.scope, 512, "oidc.scope") }),
        },
      }
    }
    const saml = await samlSettings(input.saml ?? {}, previous?.saml)
    // Its own key pair: published in its metadata, for the IdP to encrypt assertions to.
    const spKey = previous?.spKey ?? generateSpKey({ commonName: `Portcullis SSO ${base.id}` })
    return { ...base, saml, spKey }
  }

  return {
    /** The organization's connections. */
    async listConnections(organizationId: string): Promise<ConnectionView[]> {
      await manager(organizationId, "connectionsListed")
      return (await store.listConnections(organizationId)).map((c) => viewOf(tools.authUrl, c))
    },
    /** Adds a connection (step-up). SAML metadata given by URL is fetched now; the connection gets its own SP key pair. */
    async createConnection(organizationId: string, input: ConnectionInput): Promise<ConnectionView> {
      const session = await manager(organizationId, "connectionCreated", true)
      if ((await store.listConnections(organizationId)).length >= MAX_CONNECTIONS) throw new ExtensionRequestError("connection-limit", `An organization has at most ${MAX_CONNECTIONS} connections`, 409)
      const connection = await build(organizationId, input)
      await store.createConnection(connection)
      await tools.audit({ type: "connectionCreated", outcome: "success", userId: session.userId, details: { organizationId, connectionId: connection.id, kind: connection.kind } })
      return viewOf(tools.authUrl, connection)
    },
    /** Changes a connection (step-up); fields left out keep their value (a secret is never shown, so it is kept unless given). */
    async updateConnection(organizationId: string, connectionId: string, input: Partial<ConnectionInput>): Promise<ConnectionView> {
      const session = await manager(organizationId, "connectionUpdated", true)
      const previous = await connectionIn(organizationId, connectionId)
      const next = await build(organizationId, { ...input, kind: previous.kind } as ConnectionInput, previous)
      if (!(await store.updateConnection(next))) throw new ExtensionRequestError("unknown-connection", "No such SSO connection", 404)
      await tools.audit({ type: "connectionUpdated", outcome: "success", userId: session.userId, details: { organizationId, connectionId, enabled: next.enabled } })
      return viewOf(tools.authUrl, next)
    },
    /** Removes a connection and its SCIM tokens (step-up). Members stay members; their SSO account links stay unused. */
    async deleteConnection(organizationId: string, connectionId: string): Promise<void> {
      const session = await manager(organizationId, "connectionDeleted", true)
      await connectionIn(organizationId, connectionId)
      await store.deleteConnection(connectionId)
      await tools.audit({ type: "connectionDeleted", outcome: "success", userId: session.userId, details: { organizationId, connectionId } })
    },
    /**
     * Checks a connection can work without signing anyone in: an OIDC IdP's discovery (through
     * core's hardened back channel), a SAML IdP's metadata (fetched again when it came by URL).
     */
    async testConnection(organizationId: string, connectionId: string): Promise<{ ok: boolean; detail: string }> {
      await manager(organizationId, "connectionTested")
      const connection = await connectionIn(organizationId, connectionId)
      try {
        if (connection.kind === "saml") {
          const saml = connection.saml!
          // Checked again: a connection stored before this check (or by another tool) is not trusted with the network either.
          const fresh = saml.metadataUrl ? await fetchIdpMetadata(fetchedUrl(saml.metadataUrl, "saml.metadataUrl"), locals.fetch) : null
          if (fresh && fresh.idpEntityId !== saml.idpEntityId) return { ok: false, detail: `The metadata now names the IdP ${fresh.idpEntityId}, not ${saml.idpEntityId}` }
          return { ok: true, detail: `SAML IdP ${saml.idpEntityId}: ${saml.certificates.length} signing certificate(s), single sign-on at ${saml.ssoUrl}` }
        }
        const issuer = fetchedUrl(connection.oidc!.issuer, "oidc.issuer")
        const response = await locals.fetch(`${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`, { redirect: "manual", signal: AbortSignal.timeout(10_000) })
        if (!response.ok) return { ok: false, detail: `The IdP's discovery document answered ${response.status}` }
        const document = JSON.parse((await readCapped(response.body, DISCOVERY_MAX_BYTES, () => new Error(`The discovery document is over ${DISCOVERY_MAX_BYTES} bytes`))).toString("utf8")) as { issuer?: unknown; authorization_endpoint?: unknown }
        if (document.issuer !== connection.oidc!.issuer) return { ok: false, detail: `The discovery document names the issuer ${String(document.issuer)}, not ${connection.oidc!.issuer}` }
        return { ok: true, detail: `OpenID provider ${connection.oidc!.issuer}: authorization at ${String(document.authorization_endpoint)}` }
      } catch (error) {
        if (error instanceof ExtensionRequestError) return { ok: false, detail: error.message }
        return { ok: false, detail: "The IdP could not be reached" }
      }
    },

    async listDomains(organizationId: string): Promise<DomainView[]> {
      await manager(organizationId, "domainsListed")
      return (await store.listDomains(organizationId)).map(domainView)
    },
    /** Claims a domain; the answer names the TXT record to publish, then `verifyDomain`. */
    async claimDomain(organizationId: string, domain: string): Promise<DomainView> {
      const session = await manager(organizationId, "domainClaimed")
      const name = normalizeDomain(domain)
      if ((await store.listDomains(organizationId)).length >= MAX_DOMAINS) throw new ExtensionRequestError("domain-limit", `An organization claims at most ${MAX_DOMAINS} domains`, 409)
      const claim: Domain = { domain: name, organizationId, token: createVerificationToken(), verifiedAt: null, requireSso: false, connectionId: null, createdAt: new Date() }
      if ((await store.claimDomain(claim)) === "taken") throw new ExtensionRequestError("domain-taken", "Another organization verified this domain", 409)
      await tools.audit({ type: "domainClaimed", outcome: "success", userId: session.userId, details: { organizationId, domain: name } })
      return domainView((await store.getDomain(name, organizationId)) ?? claim)
    },
    /** Looks the TXT record up now (the configured resolver); verified once found. */
    async verifyDomain(organizationId: string, domain: string): Promise<DomainView> {
      const session = await manager(organizationId, "domainVerified")
      const name = normalizeDomain(domain)
      const claim = await store.getDomain(name, organizationId)
      if (!claim) throw new ExtensionRequestError("unknown-domain", "This organization has not claimed that domain", 404)
      if (claim.verifiedAt) return domainView(claim)
      await tools.rateLimit("verify-domain", { max: 10, window: 60 }, organizationId)
      const found = await locals.domains.check(name, claim.token)
      if (found !== "verified") {
        await tools.audit({ type: "domainVerified", outcome: "failure", userId: session.userId, reason: "record-not-found", details: { organizationId, domain: name } })
        throw new ExtensionRequestError("record-not-found", `No TXT record ${verificationRecord(name, claim.token).name} with the expected value was found; DNS changes can take a while to show`, 409)
      }
      const verified = await store.verifyDomain(name, organizationId, new Date())
      if (verified === "taken") throw new ExtensionRequestError("domain-taken", "Another organization verified this domain first", 409)
      if (verified === "missing") throw new ExtensionRequestError("unknown-domain", "This organization has not claimed that domain", 404)
      await tools.audit({ type: "domainVerified", outcome: "success", userId: session.userId, details: { organizationId, domain: name } })
      return domainView((await store.getDomain(name, organizationId))!)
    },
    /**
     * Whether the domain's addresses must sign in through SSO (password and email links
     * refused), and which connection its addresses are sent to (step-up).
     */
    async setDomainPolicy(organizationId: string, domain: string, policy: { requireSso?: boolean; connectionId?: string | null }): Promise<DomainView> {
      const session = await manager(organizationId, "domainPolicySet", true)
      const name = normalizeDomain(domain)
      const claim = await store.getDomain(name, organizationId)
      if (!claim) throw new ExtensionRequestError("unknown-domain", "This organization has not claimed that domain", 404)
      if (policy.connectionId !== undefined && policy.connectionId !== null) await connectionIn(organizationId, policy.connectionId)
      if (policy.requireSso === true) {
        if (!claim.verifiedAt) throw new ExtensionRequestError("domain-unverified", "Verify the domain before requiring SSO for it", 409)
        const usable = (await store.listConnections(organizationId)).some((c) => c.enabled)
        if (!usable) throw new ExtensionRequestError("no-connection", "Add and enable a connection before requiring SSO: its members would have no way in", 409)
      }
      await store.updateDomain(name, organizationId, {
        ...(typeof policy.requireSso === "boolean" && { requireSso: policy.requireSso }),
        ...(policy.connectionId !== undefined && { connectionId: policy.connectionId }),
      })
      await tools.audit({ type: "domainPolicySet", outcome: "success", userId: session.userId, details: { organizationId, domain: name, requireSso: policy.requireSso ?? claim.requireSso } })
      return domainView((await store.getDomain(name, organizationId))!)
    },
    async removeDomain(organizationId: string, domain: string): Promise<void> {
      const session = await manager(organizationId, "domainRemoved", true)
      const name = normalizeDomain(domain)
      await store.removeDomain(name, organizationId)
      await tools.audit({ type: "domainRemoved", outcome: "success", userId: session.userId, details: { organizationId, domain: name } })
    },

    /** A new SCIM bearer token for the connection (step-up): shown once, kept only as its hash. */
    async createScimToken(organizationId: string, connectionId: string): Promise<{ id: string; token: string; scimBaseUrl: string }> {
      const session = await manager(organizationId, "scimTokenCreated", true)
      const connection = await connectionIn(organizationId, connectionId)
      if ((await store.listScimTokens(connectionId)).length >= MAX_SCIM_TOKENS) throw new ExtensionRequestError("token-limit", `A connection has at most ${MAX_SCIM_TOKENS} SCIM tokens`, 409)
      const token = newScimToken()
      const record: ScimToken = { id: randomId(), connectionId, organizationId, hash: await hashScimToken(token), createdAt: new Date(), lastUsedAt: null }
      await store.addScimToken(record)
      await tools.audit({ type: "scimTokenCreated", outcome: "success", userId: session.userId, details: { organizationId, connectionId, tokenId: record.id } })
      return { id: record.id, token, scimBaseUrl: viewOf(tools.authUrl, connection).scimBaseUrl }
    },
    async listScimTokens(organizationId: string, connectionId: string): Promise<Array<{ id: string; createdAt: string; lastUsedAt: string | null }>> {
      await manager(organizationId, "scimTokensListed")
      await connectionIn(organizationId, connectionId)
      return (await store.listScimTokens(connectionId)).map((t) => ({ id: t.id, createdAt: t.createdAt.toISOString(), lastUsedAt: t.lastUsedAt?.toISOString() ?? null }))
    },
    async revokeScimToken(organizationId: string, connectionId: string, tokenId: string): Promise<void> {
      const session = await manager(organizationId, "scimTokenRevoked", true)
      await connectionIn(organizationId, connectionId)
      const owned = (await store.listScimTokens(connectionId)).some((t) => t.id === tokenId)
      if (!owned) throw new ExtensionRequestError("unknown-token", "No such SCIM token", 404)
      await store.revokeScimToken(tokenId)
      await tools.audit({ type: "scimTokenRevoked", outcome: "success", userId: session.userId, details: { organizationId, connectionId, tokenId } })
    },
  }
}

/** The server functions of the SSO extension (`extensions.sso` in every integration). */
export type SsoServer = ReturnType<typeof ssoOperations>
