/**
 * The sign-in routes: where the sign-in page's "Continue with SSO" posts (`start`), and each
 * protocol's way back — the OIDC callback, the SAML service provider's metadata and its
 * assertion consumer service (a cross-site form post from the IdP: `from: "anywhere"`, its
 * trust being the assertion's signature and a request this app made, not a browser's token).
 * @module
 */
import { ExtensionRequestError, html, ServiceUnavailable, type ExtensionRequest, type ExtensionResponse, type ExtensionRoute } from "@portcullis/core/extension"
import { ssoForEmail } from "../domain-routing.js"
import { completeSsoSignIn } from "../jit.js"
import type { SsoLocals } from "../locals.js"
import { oidcClient, oidcAsserted } from "../oidc.js"
import { samlEntityId, samlFor } from "../saml-connection.js"
import { SamlRejected, type SamlAssertionResult } from "../saml/index.js"
import type { Connection } from "../store/types.js"

/** How long a SAML sign-in may take at the IdP before its request is forgotten (seconds). */
export const SAML_REQUEST_MAX_AGE = 600

const unavailable = () => new ExtensionRequestError("sso-unavailable", "Single sign-on is not set up for this address", 404)

/** The connection named in the path, enabled and of `kind`; otherwise the same 404 (ids can't be probed). */
export async function connectionOf(req: ExtensionRequest<SsoLocals>, kind?: Connection["kind"]): Promise<Connection> {
  const id = req.params.connection
  const connection = id ? await req.locals.store.getConnection(id) : null
  if (!connection || !connection.enabled || (kind && connection.kind !== kind)) throw new ExtensionRequestError("unknown-connection", "No such SSO connection", 404)
  return connection
}

/** The connection an address signs in with (`ssoForEmail`), and whether its domain requires SSO. */
export async function connectionForEmail(locals: SsoLocals, email: string): Promise<{ connection: Connection; requireSso: boolean } | null> {
  const found = await ssoForEmail(locals.store, email)
  return found?.connection ? { connection: found.connection, requireSso: found.domain.requireSso } : null
}

async function start(req: ExtensionRequest<SsoLocals>): Promise<ExtensionResponse> {
  const email = typeof req.body.email === "string" ? req.body.email.trim().slice(0, 320) : ""
  const named = typeof req.body.connection === "string" ? req.body.connection : undefined
  let connection: Connection | undefined
  if (named) {
    connection = (await connectionOf({ ...req, params: { connection: named } }).catch(() => undefined)) ?? undefined
  } else if (email) {
    connection = (await connectionForEmail(req.locals, email))?.connection
  }
  if (!connection) throw unavailable()
  const callbackUrl = typeof req.body.callbackUrl === "string" ? req.body.callbackUrl.slice(0, 2048) : undefined
  if (connection.kind === "oidc") {
    return { redirect: await req.oidc.authorize(oidcClient(req, connection), email ? { loginHint: email } : undefined) }
  }
  const sp = samlFor(req, connection)
  const relay = crypto.randomUUID()
  const { url, requestId } = await sp.startSignIn({ relayState: relay })
  // The response will be accepted only in this browser (login CSRF): `finish` opens this.
  await req.browser.bind("saml", requestId)
  // The way back is a cross-site POST carrying no cookie of ours: where to land is kept with the request.
  await req.locals.store.put("sso-landing", requestId, JSON.stringify({ callbackUrl: callbackUrl ?? null }), new Date(Date.now() + SAML_REQUEST_MAX_AGE * 1000))
  await req.audit({ type: "signInStarted", outcome: "success", details: { connectionId: connection.id, organizationId: connection.organizationId, kind: "saml" } })
  return { redirect: url }
}

async function oidcCallback(req: ExtensionRequest<SsoLocals>): Promise<ExtensionResponse> {
  const connection = await connectionOf(req, "oidc")
  const { claims } = await req.oidc.callback(oidcClient(req, connection))
  return completeSsoSignIn(req, connection, oidcAsserted(connection, claims))
}

async function samlMetadata(req: ExtensionRequest<SsoLocals>): Promise<ExtensionResponse> {
  const connection = await connectionOf(req, "saml")
  return { text: samlFor(req, connection).metadata(), contentType: "application/samlmetadata+xml" }
}

async function samlAcs(req: ExtensionRequest<SsoLocals>): Promise<ExtensionResponse> {
  const connection = await connectionOf(req, "saml")
  let result
  try {
    result = await samlFor(req, connection).completeSignIn({ SAMLResponse: req.body.SAMLResponse, RelayState: req.body.RelayState })
  } catch (error) {
    if (!(error instanceof SamlRejected)) throw error
    // Which check refused it is for the operator (audit, log); the person gets one sentence in their language.
    await req.audit({ type: "signIn", outcome: "failure", reason: error.code, details: { connectionId: connection.id, organizationId: connection.organizationId, kind: "saml" } })
    throw new ExtensionRequestError("saml-rejected", "The identity provider's answer was refused", 400)
  }
  if (result.requestId === null) {
    // An unsolicited response (the connection allows IdP-initiated sign-in): there is no
    // request to bind it to a browser, which is why it is off by default.
    return completeSsoSignIn(req, connection, asserted(result, null))
  }
  // The response came in a cross-site POST, which carries none of our Lax cookies: the
  // checked result waits in the store for the top-level GET the browser makes next, where
  // the binding made at the start proves this is the browser that started the sign-in.
  const ticket = randomTicket()
  await req.locals.store.put("saml-verified", ticket, JSON.stringify({ connectionId: connection.id, result }), new Date(Date.now() + FINISH_WITHIN * 1000))
  return { redirect: `${samlEntityId(req.authUrl, connection)}/finish?ticket=${ticket}` }
}

async function samlFinish(req: ExtensionRequest<SsoLocals>): Promise<ExtensionResponse> {
  const connection = await connectionOf(req, "saml")
  const ticket = typeof req.query.ticket === "string" && /^[A-Za-z0-9_-]{16,64}$/.test(req.query.ticket) ? req.query.ticket : null
  const kept = ticket ? await req.locals.store.take("saml-verified", ticket) : null
  const verified = kept ? (JSON.parse(kept) as { connectionId: string; result: SamlAssertionResult }) : null
  const bound = await req.browser.bound("saml")
  if (!verified || verified.connectionId !== connection.id || bound === null || bound !== verified.result.requestId) {
    await req.audit({ type: "signIn", outcome: "failure", reason: verified ? "saml-other-browser" : "saml-ticket", details: { connectionId: connection.id, organizationId: connection.organizationId, kind: "saml" } })
    throw new ExtensionRequestError("saml-rejected", "The identity provider's answer was not for this browser", 400)
  }
  const landing = await req.locals.store.take("sso-landing", bound)
  const callbackUrl = landing ? (JSON.parse(landing) as { callbackUrl: string | null }).callbackUrl : null
  return completeSsoSignIn(req, connection, asserted(verified.result, callbackUrl))
}

/**
 * This app's sign-out of an SSO session, for a link or button of the app: the session's SSO
 * mark ends at once (the browser is signed out on its next request), and when the session came
 * through a SAML connection with single logout, the browser goes on to the IdP to end its
 * session there too, then back to `callbackUrl` (through the `redirect` callback's rules: a path
 * of this site).
 */
async function logout(req: ExtensionRequest<SsoLocals>): Promise<ExtensionResponse> {
  const session = await req.requireSession()
  const back = sitePath(req.body.callbackUrl)
  const kept = await req.locals.store.take("saml-logout-of", session.key)
  const record = kept ? (JSON.parse(kept) as { connectionId: string; nameId: string; nameIdFormat: string | null; sessionIndex: string | null }) : null
  const connection = record ? await req.locals.store.getConnection(record.connectionId) : null
  if (connection) await req.locals.store.endSessions(session.userId, connection.organizationId)
  await req.audit({ type: "signOut", outcome: "success", userId: session.userId, details: { connectionId: connection?.id ?? null, idp: !!connection?.saml?.sloUrl } })
  if (!record || !connection?.enabled || !connection.saml?.sloUrl) return { redirect: new URL(back, req.url).href }
  const { url } = await samlFor(req, connection).startLogout({ nameId: record.nameId, nameIdFormat: record.nameIdFormat, sessionIndex: record.sessionIndex, relayState: back })
  return { redirect: url }
}

/**
 * The IdP's single-logout messages (HTTP-Redirect, signed): its answer to this app's logout
 * (back to where the person was going), or its request to end the person's sessions of this
 * organization (answered with a signed LogoutResponse).
 */
async function samlSlo(req: ExtensionRequest<SsoLocals>): Promise<ExtensionResponse> {
  const connection = await connectionOf(req, "saml")
  let result
  try {
    result = await samlFor(req, connection).completeLogout(req.url.search.replace(/^\?/, ""))
  } catch (error) {
    if (!(error instanceof SamlRejected)) throw error
    await req.audit({ type: "logout", outcome: "failure", reason: error.code, details: { connectionId: connection.id } })
    throw new ExtensionRequestError("saml-rejected", "The identity provider's logout message was refused", 400)
  }
  if (result.kind === "response") return { redirect: new URL(sitePath(result.relayState), req.url).href }
  const kept = await req.locals.store.take("saml-subject", `${connection.id}\n${result.nameId}`)
  const userId = kept ? (JSON.parse(kept) as { userId: string }).userId : null
  const ended = userId ? await req.locals.store.endSessions(userId, connection.organizationId) : 0
  await req.audit({ type: "logout", outcome: "success", ...(userId && { userId }), details: { connectionId: connection.id, ended } })
  return { redirect: await result.responseUrl(true) }
}

/** A path of this site to land on (never another origin: no open redirect); `/` otherwise. */
function sitePath(value: unknown): string {
  return typeof value === "string" && value.startsWith("/") && !value.startsWith("//") && !value.includes("\\") && value.length <= 2048 ? value : "/"
}

/** Seconds between the IdP's POST and the browser's next GET: a redirect, so a few are plenty. */
const FINISH_WITHIN = 120

const randomTicket = () => Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url")

function asserted(result: SamlAssertionResult, callbackUrl: string | null) {
  const name = first(result.attributes, ["displayName", "name", "cn", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name", "urn:oid:2.16.840.1.113730.3.1.241"])
  return { subject: result.nameId, email: result.email, name, attributes: result.attributes, logout: { nameIdFormat: result.nameIdFormat, sessionIndex: result.sessionIndex }, ...(callbackUrl && { callbackUrl }) }
}

function first(attributes: Record<string, string[]>, names: string[]): string | null {
  for (const name of names) {
    const value = attributes[name]?.[0]
    if (value) return value.slice(0, 256)
  }
  return null
}

/** Core's errors for an OIDC IdP that cannot be used: it does not answer, or its discovery document is unusable. */
const IDP_FAILURES = new Set(["OAuthSignInError", "InvalidEndpoints"])

type Handler = (req: ExtensionRequest<SsoLocals>) => Promise<ExtensionResponse>

/**
 * A step of the sign-in a person's browser navigates to (the sign-in page's form, the IdP's
 * auto-POST, its redirect back): what stops it is a page they can read. An IdP that does not
 * answer is no bug of ours (a warning, a 502 page, never a 500 with a stack); and core renders
 * a refusal as a page for GET routes only, so the POST steps render theirs here, in the same
 * words (`error.<code>`) and with the same status.
 */
function asPage(handler: Handler): Handler {
  return async (req) => {
    try {
      return await handler(req)
    } catch (error) {
      const type = (error as { type?: unknown } | null)?.type
      const title = req.t("error.title")
      const page = (shown: string, status: number) => req.page(title, html`<h1>${title}</h1><p role="alert">${shown}</p>`, status)
      if (typeof type === "string" && IDP_FAILURES.has(type)) {
        // Which connection and what kind of failure; the error's message may carry the IdP's answer.
        req.locals.logger.warn("sso-idp-unavailable", { connectionId: req.params.connection ?? null, error: type })
        return page(req.t("error.idp-unavailable"), 502)
      }
      if (req.method !== "POST") throw error
      // A store that failed (core's AdapterError from a wrapped store): the outage core would answer 503 for.
      if (error instanceof ServiceUnavailable || type === "AdapterError") {
        req.locals.logger.warn("sso-unavailable", { connectionId: req.params.connection ?? null })
        return page(req.t("error.ServiceUnavailable"), 503)
      }
      if (error instanceof ExtensionRequestError) {
        req.locals.logger.warn("sso-sign-in-refused", { code: error.code, status: error.status })
        // Its sentence in the catalog, else its own message (written for the person, never a secret).
        const key = `error.${error.code}`
        const sentence = req.t(key)
        return page(sentence === key ? error.message : sentence, error.status)
      }
      throw error
    }
  }
}

export const signInRoutes: ExtensionRoute<SsoLocals>[] = [
  { method: "POST", path: "start", access: "anyone", answers: "page", rateLimit: { max: 20, window: 60 }, handler: asPage(start) },
  { method: "GET", path: "oidc/:connection/callback", access: "anyone", answers: "page", rateLimit: { max: 20, window: 60 }, handler: asPage(oidcCallback) },
  { method: "GET", path: "saml/:connection", access: "anyone", rateLimit: { max: 60, window: 60 }, handler: samlMetadata },
  { method: "POST", path: "saml/:connection/acs", access: "anyone", from: "anywhere", answers: "page", rateLimit: { max: 20, window: 60 }, handler: asPage(samlAcs) },
  { method: "GET", path: "saml/:connection/finish", access: "anyone", answers: "page", rateLimit: { max: 20, window: 60 }, handler: asPage(samlFinish) },
  { method: "GET", path: "saml/:connection/slo", access: "anyone", from: "anywhere", answers: "page", rateLimit: { max: 20, window: 60 }, handler: asPage(samlSlo) },
  { method: "POST", path: "logout", answers: "page", handler: asPage(logout) },
]
