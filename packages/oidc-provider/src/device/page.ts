/**
 * The code-entry page of the device grant (RFC 8628 §3.3) at `<issuer>/device`: the signed-in
 * person types the code their device shows, sees the consent screen for that client and
 * those scopes, and approves or denies. No script; plain forms with the CSRF token.
 *
 * Guessing is bounded by the route's rate limit, counted per address and per user on every
 * post (a wrong code counts, and so does a right one: counting only misses would turn the
 * limit itself into an oracle). An approval is one `decideDevice` step: of two concurrent
 * ones, on any number of instances, one wins; the loser's grant is revoked at once.
 * @module
 */
import { html, type ExtensionRequest, type ExtensionResponse, type SafeHtml } from "@portcullis/core/extension"
import { findClient, type Client } from "../clients.js"
import { routesBase, type Locals } from "../locals.js"
import { scopeSentence } from "../pages.js"
import { randomToken } from "../random.js"
import type { DeviceAuthorization } from "../store/types.js"
import { displayUserCode, normalizeUserCode } from "./codes.js"

type Req = ExtensionRequest<Locals>

/** The code form, with the phishing warning above it; `error` after a wrong code. */
async function entryPage(req: Req, typed: string, error?: "unknown" | "used", status = 200): Promise<ExtensionResponse> {
  const title = req.t("device.title")
  const body = html`<h1>${title}</h1>
    <p role="note"><strong>${req.t("device.warning")}</strong></p>
    ${error ? html`<p role="alert" id="device-error">${req.t(`device.${error}`)}</p>` : ""}
    <form method="post" action="${`${routesBase(req)}/device`}">
      <input type="hidden" name="csrfToken" value="${await req.csrfToken()}">
      <label for="user_code">${req.t("device.label")}</label>
      <p id="user_code_hint"><small>${req.t("device.intro")} ${req.t("device.hint")}</small></p>
      <input id="user_code" name="user_code" value="${typed}" required maxlength="20" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" aria-describedby="user_code_hint${error ? " device-error" : ""}"${error ? html` aria-invalid="true"` : ""}>
      <button type="submit">${req.t("device.continue")}</button>
    </form>`
  return req.page(title, body, status)
}

/** The consent screen for the device's client and scopes. */
async function confirmPage(req: Req, device: DeviceAuthorization, client: Client, user: string): Promise<ExtensionResponse> {
  const name = client.name ?? client.clientId
  const title = req.t("device.confirm", { client: name })
  const unverified: SafeHtml | string = client.dynamic ? html`<p role="note"><strong>${req.t("consent.unverified", { client: name, host: client.redirectUris.map((u) => safeHost(u)).join(", ") || "—" })}</strong></p>` : ""
  const body = html`<h1>${title}</h1>
    <p>${req.t("consent.signedInAs", { user })}</p>
    ${unverified}
    <p role="note"><strong>${req.t("device.warning")}</strong></p>
    <p>${req.t("consent.intro", { client: name })}</p>
    <ul>${device.scope.split(" ").filter(Boolean).map((s) => html`<li>${scopeSentence(req.t, s)}</li>`)}</ul>
    ${device.resources.length ? html`<p>${req.t("consent.resources")}</p><ul>${device.resources.map((r) => html`<li><code>${r}</code></li>`)}</ul>` : ""}
    <p><code>${displayUserCode(device.userCode)}</code></p>
    <form method="post" action="${`${routesBase(req)}/device`}">
      <input type="hidden" name="csrfToken" value="${await req.csrfToken()}">
      <input type="hidden" name="user_code" value="${device.userCode}">
      <button type="submit" name="decision" value="allow">${req.t("consent.allow")}</button>
      <button type="submit" name="decision" value="deny">${req.t("consent.deny")}</button>
    </form>`
  return req.page(title, body)
}

function safeHost(uri: string): string {
  try {
    const url = new URL(uri)
    return url.host || url.protocol
  } catch {
    return ""
  }
}

function donePage(req: Req, key: "approved" | "denied"): ExtensionResponse {
  const title = req.t("device.title")
  return req.page(title, html`<h1>${title}</h1><p role="status">${req.t(`device.${key}`)}</p>`)
}

/** `GET device[?user_code=…]`: the form (after signing in: the code survives the round trip). */
export async function devicePage(req: Req): Promise<ExtensionResponse> {
  const typed = typeof req.query.user_code === "string" ? req.query.user_code.slice(0, 20) : ""
  if (!(await req.session())) {
    const back = `${routesBase(req)}/device${typed ? `?user_code=${encodeURIComponent(typed)}` : ""}`
    return { redirect: `${req.authUrl}/signin?callbackUrl=${encodeURIComponent(back)}` }
  }
  return entryPage(req, typed)
}

/** `POST device`: a code (→ the consent screen) or a decision on one. */
export async function deviceSubmit(req: Req): Promise<ExtensionResponse> {
  const { locals } = req
  const session = await req.requireSession()
  const typed = typeof req.body.user_code === "string" ? req.body.user_code.slice(0, 20) : ""
  const userCode = normalizeUserCode(typed)
  const device = userCode ? await locals.store.findDeviceByUserCode(userCode) : null
  const client = device ? await findClient(locals.clients, locals.store, device.clientId) : null
  if (!device || !client || !userCode) {
    await req.audit({ type: "deviceCodeRejected", outcome: "failure", userId: session.userId })
    return entryPage(req, typed, "unknown", 400)
  }
  const decision = req.body.decision
  if (decision !== "allow" && decision !== "deny") return confirmPage(req, device, client, session.email ?? session.userId)
  if (decision === "deny") {
    const decided = await locals.store.decideDevice(userCode, { status: "denied" })
    if (!decided) return entryPage(req, "", "used", 409)
    await req.audit({ type: "deviceDenied", outcome: "success", userId: session.userId, details: { clientId: client.clientId } })
    return donePage(req, "denied")
  }
  // The grant exists before the approval names it; if another approval won, it is revoked at once.
  const now = Date.now()
  const authTime = await req.authTime()
  const grantId = randomToken(16)
  await locals.store.createGrant({
    id: grantId,
    clientId: client.clientId,
    userId: session.userId,
    scope: device.scope,
    resources: device.resources,
    ...(authTime && { authTime: Math.floor(authTime.getTime() / 1000) }),
    sessionKey: session.key,
    createdAt: new Date(now),
    expiresAt: new Date(now + locals.options.ttl.grant * 1000),
  })
  let won: boolean
  try {
    won = await locals.store.decideDevice(userCode, {
      status: "approved",
      userId: session.userId,
      ...(authTime && { authTime: Math.floor(authTime.getTime() / 1000) }),
      grantId,
    })
  } catch (error) {
    // No grant is left behind that no device names (best effort: the store may be down for this too).
    await locals.store.revokeGrant(grantId).catch(() => {})
    throw error
  }
  if (!won) {
    await locals.store.revokeGrant(grantId)
    return entryPage(req, "", "used", 409)
  }
  await locals.store.saveConsent({ userId: session.userId, clientId: client.clientId, scope: device.scope, resources: device.resources, createdAt: new Date(now), updatedAt: new Date(now) })
  await req.audit({ type: "deviceApproved", outcome: "success", userId: session.userId, details: { clientId: client.clientId, scope: device.scope } })
  return donePage(req, "approved")
}
