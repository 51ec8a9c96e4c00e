/**
 * An IdP's SAML metadata: parsed from XML an administrator pasted, or fetched from the
 * IdP's metadata URL under tight limits (HTTPS, no redirects, a time and size cap).
 * @module
 */
import { X509Certificate } from "node:crypto"
import { SamlRejected } from "./errors.js"
import { DSIG_NS, MD_NS, children, descendants, parseStrictXml } from "./xml.js"

const REDIRECT_BINDING = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect"

/** What a connection needs from an IdP's metadata (the fields of `SamlConnectionSettings`). */
export interface IdpMetadata {
  idpEntityId: string
  /** The HTTP-Redirect single sign-on endpoint. */
  ssoUrl: string
  /** The HTTP-Redirect single logout endpoint, when the IdP has one. */
  sloUrl?: string
  /** The signing certificates, bare base64 DER; two during a rollover. */
  certificates: string[]
}

const invalid = (why: string) => new SamlRejected("saml-metadata", `The IdP metadata is not usable: ${why}`)

function redirectLocation(descriptor: Element, localName: string): string | undefined {
  const endpoint = children(descriptor, MD_NS, localName).find((e) => e.getAttribute("Binding") === REDIRECT_BINDING)
  const location = endpoint?.getAttribute("Location")?.trim()
  if (!location) return undefined
  if (!/^https?:\/\//i.test(location)) throw invalid(`${localName} is not an http(s) URL`)
  return location
}

/**
 * Reads an IdP's entity ID, HTTP-Redirect SSO (and SLO) endpoints and signing certificates
 * from its metadata XML. A document type declaration is refused; so is metadata that
 * describes no IdP, or more than one (an aggregate: pick the IdP's own document).
 *
 * @example
 * ```ts
 * const idp = parseIdpMetadata(pastedXml)
 * const saml = { idpEntityId: idp.idpEntityId, ssoUrl: idp.ssoUrl, certificates: idp.certificates }
 * ```
 */
export function parseIdpMetadata(xml: string): IdpMetadata {
  const doc = parseStrictXml(xml)
  const entities = descendants(doc, MD_NS, "EntityDescriptor").filter((e) => children(e, MD_NS, "IDPSSODescriptor").length > 0)
  if (entities.length !== 1) throw invalid(entities.length ? "it describes more than one identity provider" : "it describes no identity provider")
  const entity = entities[0]!
  const idpEntityId = entity.getAttribute("entityID")?.trim()
  if (!idpEntityId) throw invalid("the entityID is missing")
  const descriptor = children(entity, MD_NS, "IDPSSODescriptor")[0]!
  const ssoUrl = redirectLocation(descriptor, "SingleSignOnService")
  if (!ssoUrl) throw invalid("there is no HTTP-Redirect SingleSignOnService")
  const sloUrl = redirectLocation(descriptor, "SingleLogoutService")
  const certificates: string[] = []
  for (const key of children(descriptor, MD_NS, "KeyDescriptor")) {
    const use = key.getAttribute("use")
    if (use && use !== "signing") continue
    for (const cert of descendants(key, DSIG_NS, "X509Certificate")) {
      const base64 = (cert.textContent ?? "").replace(/\s+/g, "")
      try {
        new X509Certificate(Buffer.from(base64, "base64"))
      } catch {
        throw invalid("a signing certificate does not parse")
      }
      if (!certificates.includes(base64)) certificates.push(base64)
    }
  }
  if (certificates.length === 0) throw invalid("there is no signing certificate")
  return { idpEntityId, ssoUrl, ...(sloUrl ? { sloUrl } : {}), certificates }
}

/** Limits of {@link fetchIdpMetadata}. */
export interface FetchMetadataOptions {
  /** Default 5 000. */
  timeoutMs?: number
  /** Default 1 MiB; a larger document is refused, not truncated. */
  maxBytes?: number
  /** Allow `http://` to a loopback host (a test IdP). Default: when `NODE_ENV` is not `production`. */
  allowLoopbackHttp?: boolean
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"])

/**
 * Fetches and parses an IdP's metadata. HTTPS only (plain HTTP only to a loopback host outside
 * production); a redirect is refused, not followed; the body is capped in time and size.
 *
 * @example
 * ```ts
 * const idp = await fetchIdpMetadata("https://idp.acme.com/metadata", fetch, { timeoutMs: 3000 })
 * ```
 */
export async function fetchIdpMetadata(url: string, fetchImpl: typeof fetch, options: FetchMetadataOptions = {}): Promise<IdpMetadata> {
  const timeoutMs = options.timeoutMs ?? 5000
  const maxBytes = options.maxBytes ?? 1024 * 1024
  const allowLoopbackHttp = options.allowLoopbackHttp ?? process.env.NODE_ENV !== "production"
  let target: URL
  try {
    target = new URL(url)
  } catch {
    throw invalid("the metadata URL is not a URL")
  }
  const plainAllowed = target.protocol === "http:" && allowLoopbackHttp && LOOPBACK.has(target.hostname)
  if (target.protocol !== "https:" && !plainAllowed) throw invalid("the metadata URL must be https")
  const signal = AbortSignal.timeout(timeoutMs)
  let text: string
  try {
    const response = await fetchImpl(target, { redirect: "manual", signal, headers: { accept: "application/samlmetadata+xml, application/xml, text/xml" } })
    if (response.status >= 300 && response.status < 400) throw invalid("the metadata URL redirects (redirects are not followed)")
    if (!response.ok || !response.body) throw invalid(`the metadata URL answered ${response.status}`)
    const declared = Number(response.headers.get("content-length") ?? "0")
    if (declared > maxBytes) throw invalid("the metadata is too large")
    const chunks: Uint8Array[] = []
    let size = 0
    const reader = response.body.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.byteLength
      if (size > maxBytes) {
        await reader.cancel()
        throw invalid("the metadata is too large")
      }
      chunks.push(value)
    }
    text = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks))
  } catch (error) {
    if (error instanceof SamlRejected) throw error
    throw invalid(signal.aborted ? "the metadata URL did not answer in time" : "the metadata could not be fetched")
  }
  return parseIdpMetadata(text)
}
