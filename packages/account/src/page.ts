/**
 * The account center's page: one section per part of the account, each a form that works
 * without JavaScript (it posts with the CSRF token and comes back with a notice). Sensitive
 * forms show only while the session is stepped up; otherwise a link to confirm it's you.
 * @module
 */
import { html, raw, StepUpRequired, type AccountSession, type ExtensionRequest, type ExtensionResponse, type SafeHtml } from "@portcullis/core/extension"
import type { AccountLocals } from "./options.js"
import { parseUserAgent } from "./user-agent.js"

type Request = ExtensionRequest<AccountLocals>

/** Longest `locate` may take per address before the list shows no place. */
const LOCATE_TIMEOUT_MS = 1000

/**
 * What the account page adds to core's stylesheet: section headings below the page's own,
 * and lists without bullets. A constant (nothing from input), on core's colour variables.
 */
const STYLE = html`<style>
section { margin-top: 1.75rem; }
section h2 { font-size: 1.125rem; margin: 0 0 0.75rem; }
section ul { list-style: none; margin: 0 0 1rem; padding: 0; display: flex; flex-direction: column; gap: 1rem; }
section li form { margin-top: 0.5rem; }
section form + form { margin-top: 1.25rem; }
</style>`

/**
 * Adds a passkey with core's WebAuthn registration (docs/passkeys.md, "The HTTP flow"), for
 * browsers that run scripts: it shows the button, asks core for the options, creates the
 * credential and posts it as core's form expects, coming back to the page. A constant: the
 * paths and the provider id arrive in `data-` attributes, escaped.
 */
// String.raw: the regular expressions keep their backslashes.
const PASSKEY_SCRIPT = raw(String.raw`<script>
(() => {
  const button = document.getElementById("add-passkey")
  if (!button || !window.PublicKeyCredential) return
  button.hidden = false
  const bytes = (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(s.length / 4) * 4, "=")), (c) => c.charCodeAt(0)).buffer
  const text = (b) => btoa(String.fromCharCode(...new Uint8Array(b))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
  button.addEventListener("click", async () => {
    const { options } = await (await fetch(button.dataset.options, { credentials: "same-origin" })).json()
    const publicKey = { ...options, challenge: bytes(options.challenge), user: { ...options.user, id: bytes(options.user.id) }, excludeCredentials: (options.excludeCredentials || []).map((c) => ({ ...c, id: bytes(c.id) })) }
    const credential = await navigator.credentials.create({ publicKey }).catch(() => null)
    if (!credential) return
    const r = credential.response
    const data = { id: credential.id, rawId: text(credential.rawId), type: credential.type, clientExtensionResults: credential.getClientExtensionResults(), authenticatorAttachment: credential.authenticatorAttachment || undefined, response: { clientDataJSON: text(r.clientDataJSON), attestationObject: text(r.attestationObject), transports: r.getTransports ? r.getTransports() : [] } }
    const form = document.createElement("form")
    form.method = "post"
    form.action = button.dataset.callback
    for (const [name, value] of Object.entries({ action: "register", data: JSON.stringify(data), csrfToken: button.dataset.csrf, callbackUrl: button.dataset.back })) {
      const input = document.createElement("input")
      input.type = "hidden"
      input.name = name
      input.value = value
      form.append(input)
    }
    document.body.append(form)
    form.submit()
  })
})()
</script>`)

/** Whether the session re-authenticated recently (the sensitive forms are shown then). */
async function steppedUp(req: Request): Promise<boolean> {
  try {
    await req.requireSession({ stepUp: true })
    return true
  } catch (error) {
    if (error instanceof StepUpRequired) return false
    throw error
  }
}

function hidden(csrfToken: string): SafeHtml {
  return html`<input type="hidden" name="csrfToken" value="${csrfToken}">`
}

/** A form posting to one of the account center's actions. */
function form(req: Request, csrfToken: string, path: string, body: SafeHtml, label?: string): SafeHtml {
  return html`<form method="post" action="${`${req.authUrl}/account/${path}`}"${label ? html` aria-label="${label}"` : ""}>${hidden(csrfToken)}${body}</form>`
}

function field(id: string, label: string, input: SafeHtml): SafeHtml {
  return html`<div class="field"><label for="${id}">${label}</label>${input}</div>`
}

function section(id: string, heading: string, body: SafeHtml): SafeHtml {
  return html`<section id="${id}" aria-labelledby="${`${id}-heading`}"><h2 id="${`${id}-heading`}">${heading}</h2>${body}</section>`
}

/** The place of `ip` from the app's resolver, bounded; nothing when it fails or is slow. */
async function place(req: Request, ip: string | null): Promise<string | undefined> {
  const locate = req.locals.locate
  if (!locate || !ip) return undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), LOCATE_TIMEOUT_MS)))
    const found = await Promise.race([Promise.resolve().then(() => locate(ip)), late])
    return typeof found === "string" && found ? found.slice(0, 200) : undefined
  } catch {
    return undefined
  } finally {
    clearTimeout(timer)
  }
}

/** A session's device as people name it: "Firefox on Windows". */
export function deviceName(req: Pick<Request, "t">, userAgent: string | null): string {
  const { browser, os } = parseUserAgent(userAgent)
  if (browser && os) return req.t("sessions.device", { browser, os })
  return browser ?? os ?? req.t("sessions.unknown")
}

function when(req: Request, iso: string | null): string {
  if (!iso) return ""
  try {
    return new Intl.DateTimeFormat(req.locale, { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }).format(new Date(iso)) + " UTC"
  } catch {
    return iso
  }
}

async function sessionItem(req: Request, csrfToken: string, s: AccountSession): Promise<SafeHtml> {
  const where = await place(req, s.ipAddress)
  const name = deviceName(req, s.userAgent)
  return html`<li><strong>${name}</strong>${s.current ? html` <span class="muted">(${req.t("sessions.current")})</span>` : ""}<br>
<span class="muted">${req.t("sessions.lastSeen", { time: when(req, s.lastSeenAt ?? s.createdAt) })}${where ? html` · ${req.t("sessions.from", { place: where })}` : ""}</span>
${s.current ? "" : form(req, csrfToken, `sessions/${encodeURIComponent(s.id)}/revoke`, html`<button type="submit">${req.t("sessions.revoke")}</button>`)}</li>`
}

/** `GET account`: the account center. */
export async function accountPage(req: Request): Promise<ExtensionResponse> {
  await req.requireSession()
  const [user, ways, passkeys, password, twoFactor, sessions, recent, csrfToken] = await Promise.all([
    req.account.user(),
    req.account.waysIn(),
    req.account.passkeys(),
    req.account.password(),
    req.account.twoFactor(),
    req.account.sessions().catch(() => null),
    steppedUp(req),
    req.csrfToken(),
  ])
  const added = await extensionSections(req)
  const pending = twoFactor.pending ? await req.account.pendingTwoFactor() : null
  const here = `${req.authUrl}/account`
  const reauth = new URL(`${req.authUrl}/reauthenticate`)
  reauth.searchParams.set("callbackUrl", here)
  const confirmFirst = html`<p class="muted">${req.t("stepUp.needed")}</p><p><a class="button" href="${reauth.href}">${req.t("stepUp.link")}</a></p>`
  const sensitive = (body: SafeHtml) => (recent ? body : confirmFirst)

  const notice = typeof req.query.notice === "string" ? noticeText(req, req.query.notice, req.query.count) : undefined
  const problem = typeof req.query.problem === "string" ? problemText(req, req.query.problem) : undefined
  const title = req.t("title")

  const profile = section("profile", req.t("profile.heading"), form(req, csrfToken, "profile", html`
${field("name", req.t("profile.name"), html`<input id="name" name="name" autocomplete="name" maxlength="100" value="${user.name ?? ""}">`)}
${field("image", req.t("profile.image"), html`<input id="image" name="image" type="url" inputmode="url" maxlength="2048" placeholder="https://" value="${user.image ?? ""}">`)}
<button type="submit">${req.t("profile.save")}</button>`))

  const email = section("email", req.t("email.heading"), html`<p>${user.email ? req.t("email.current", { email: user.email }) : req.t("email.none")}${user.email && !user.emailVerified ? html` <span class="muted">(${req.t("email.unverified")})</span>` : ""}</p>
${sensitive(form(req, csrfToken, "email", html`${field("new-email", req.t("email.new"), html`<input id="new-email" name="email" type="email" autocomplete="email" required maxlength="320">`)}<button type="submit">${req.t("email.submit")}</button>`))}`)

  const links = ways.links.length
    ? section("accounts", req.t("accounts.heading"), html`<ul>${ways.links.map((l) =>
        l.linked
          ? html`<li><strong>${l.name}</strong> <span class="muted">${req.t("accounts.linked")}</span>${recent ? form(req, csrfToken, `accounts/${encodeURIComponent(l.provider)}/unlink`, html`<button type="submit">${req.t("accounts.unlink", { provider: l.name })}</button>`) : ""}</li>`
          : html`<li><strong>${l.name}</strong> <span class="muted">${req.t("accounts.notLinked")}</span><form method="post" action="${`${req.authUrl}/signin/${encodeURIComponent(l.provider)}`}">${hidden(csrfToken)}<input type="hidden" name="callbackUrl" value="${here}"><button type="submit">${req.t("accounts.link", { provider: l.name })}</button></form></li>`,
      )}</ul>${recent ? "" : confirmFirst}`)
    : html``

  const passkeyProvider = ways.passkeyProvider
  const addPasskey = passkeyProvider
    ? html`<p><button type="button" id="add-passkey" hidden data-options="${`${req.authUrl}/webauthn-options/${encodeURIComponent(passkeyProvider)}?action=register`}" data-callback="${`${req.authUrl}/callback/${encodeURIComponent(passkeyProvider)}`}" data-csrf="${csrfToken}" data-back="${`${here}?notice=passkeyAdded#passkeys`}">${req.t("passkeys.add")}</button></p>${PASSKEY_SCRIPT}`
    : html``
  const passkeyList = section("passkeys", req.t("passkeys.heading"), html`${addPasskey}${passkeys.length ? html`<ul>${passkeys.map((p) => {
    const name = p.name ?? req.t("passkeys.unnamed")
    const inputId = `passkey-${p.id}`
    return html`<li><strong>${name}</strong>${p.backedUp ? html` <span class="muted">(${req.t("passkeys.synced")})</span>` : ""}
${form(req, csrfToken, `passkeys/${encodeURIComponent(p.id)}/rename`, html`${field(inputId, req.t("passkeys.newName", { name }), html`<input id="${inputId}" name="name" required maxlength="64">`)}<button type="submit">${req.t("passkeys.rename")}</button>`)}
${recent ? form(req, csrfToken, `passkeys/${encodeURIComponent(p.id)}/remove`, html`<button type="submit">${req.t("passkeys.remove")}</button>`) : ""}</li>`
  })}</ul>${recent ? "" : confirmFirst}` : html`<p class="muted">${req.t("passkeys.none")}</p>`}`)

  const passwordSection = password.available
    ? section("password", req.t("password.heading"), password.set
        ? form(req, csrfToken, "password/change", html`<input type="text" name="username" autocomplete="username" value="${user.email ?? ""}" hidden>
${field("current-password", req.t("password.current"), html`<input id="current-password" name="currentPassword" type="password" autocomplete="current-password" required>`)}
${field("new-password", req.t("password.new"), html`<input id="new-password" name="password" type="password" autocomplete="new-password" required>`)}
<button type="submit">${req.t("password.change")}</button>`)
        : html`<p class="muted">${req.t("password.none")}</p>${sensitive(form(req, csrfToken, "password/set", html`<input type="text" name="username" autocomplete="username" value="${user.email ?? ""}" hidden>
${field("set-password", req.t("password.new"), html`<input id="set-password" name="password" type="password" autocomplete="new-password" required>`)}
<button type="submit">${req.t("password.set")}</button>`))}`)
    : html``

  const codeField = (id: string) => field(id, req.t("twoFactor.code"), html`<input id="${id}" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="64">`)
  const twoFactorSection = twoFactor.available
    ? section("two-factor", req.t("twoFactor.heading"), twoFactor.enabled
        ? html`<p>${req.t("twoFactor.on", { count: twoFactor.backupCodesLeft })}</p>${sensitive(html`
${form(req, csrfToken, "two-factor/regenerate", html`${codeField("regenerate-code")}<button type="submit">${req.t("twoFactor.regenerate")}</button>`)}
${form(req, csrfToken, "two-factor/disable", html`${codeField("disable-code")}<button type="submit">${req.t("twoFactor.disable")}</button>`)}`)}`
        : pending
          ? sensitive(html`<p>${req.t("twoFactor.scan")}</p>
<p class="center">${qrImage(pending.qrSvg, req.t("twoFactor.qr"))}</p>
<p>${req.t("twoFactor.key")}: <code class="code">${pending.manualKey}</code></p>
${form(req, csrfToken, "two-factor/confirm", html`${codeField("enable-code")}<button type="submit">${req.t("twoFactor.confirm")}</button>`)}`)
          : html`<p class="muted">${req.t("twoFactor.off")}</p>${sensitive(form(req, csrfToken, "two-factor/start", html`<button type="submit">${req.t("twoFactor.start")}</button>`))}`)
    : html``

  const sessionsSection = sessions
    ? section("sessions", req.t("sessions.heading"), html`<ul>${await Promise.all(sessions.map((s) => sessionItem(req, csrfToken, s)))}</ul>
${sessions.length > 1 ? sensitive(form(req, csrfToken, "sessions/revoke-others", html`<button type="submit">${req.t("sessions.revokeOthers")}</button>`)) : ""}`)
    : html``

  const deleteSection = section("delete", req.t("delete.heading"), html`<p>${req.t("delete.warning")}</p>${sensitive(form(req, csrfToken, "delete", html`
${field("delete-confirm", req.t("delete.confirm"), html`<input id="delete-confirm" name="confirm" required autocomplete="off">`)}
<button type="submit">${req.t("delete.submit")}</button>`))}`)

  return req.page(title, html`${STYLE}<h1>${title}</h1>
${notice ? html`<p role="status">${notice}</p>` : ""}${problem ? html`<p class="alert" role="alert">${problem}</p>` : ""}
${profile}${email}${links}${passkeyList}${passwordSection}${twoFactorSection}${sessionsSection}${added}${deleteSection}`)
}

/**
 * The sections other extensions add (`accountSection`: an OpenID Provider's remembered
 * grants), after the account's own and before deletion, which stays last. Each under its
 * own landmark, its id prefixed (`ext-<extension id>`) so none can take a built-in one's.
 * Those that failed are one status line, not a hole and never the whole page.
 */
async function extensionSections(req: Request): Promise<SafeHtml> {
  const entries = await req.accountSections()
  const shown = entries.flatMap((e) => ("unavailable" in e ? [] : [section(`ext-${e.id}`, e.heading, e.body)]))
  const failed = entries.some((e) => "unavailable" in e)
  return html`${shown}${failed ? html`<p class="muted" role="status" id="ext-unavailable">${req.t("sections.unavailable")}</p>` : ""}`
}

/**
 * A notice's sentence: a known key's only, its count only digits. The query is anyone's to
 * write (a link in a phishing mail), so its text never reaches the page: an unknown notice
 * shows nothing rather than `notice.<their words>` in the page's trusted status line.
 */
function noticeText(req: Request, code: string, count: string | undefined): string | undefined {
  const key = `notice.${code}`
  if (!/^[A-Za-z]{1,40}$/.test(code) || req.t(key) === key) return undefined
  return req.t(key, { count: count !== undefined && /^\d{1,6}$/.test(count) ? count : "0" })
}

/** A problem's sentence: the code's own, else the general one. */
function problemText(req: Request, code: string): string {
  const key = `problem.${code.replace(/[^A-Za-z0-9-]/g, "").slice(0, 40)}`
  const sentence = req.t(key)
  return sentence === key ? req.t("problem.generic") : sentence
}

/** The enrollment's QR code as an image (the SVG is core's own output, ASCII, no input in it). */
function qrImage(svg: string, alt: string): SafeHtml {
  return html`<img alt="${alt}" width="200" height="200" src="${`data:image/svg+xml;base64,${btoa(svg)}`}">`
}

/** After 2FA is on or the codes were replaced: the codes, once. */
export async function backupCodesPage(req: Request, codes: string[]): Promise<ExtensionResponse> {
  const title = req.t("twoFactor.codesTitle")
  return req.page(title, html`<h1>${title}</h1><p>${req.t("twoFactor.codes")}</p>
<ul class="code">${codes.map((c) => html`<li><code>${c}</code></li>`)}</ul>
<p><a class="button" href="${`${req.authUrl}/account#two-factor`}">${req.t("back")}</a></p>`)
}

export function deletedPage(req: Request): ExtensionResponse {
  const title = req.t("deleted.title")
  return req.page(title, html`<h1>${title}</h1><p role="status">${req.t("deleted.body")}</p>`)
}

/** `GET email/confirm?email&token`: a button that posts the token (a mail scanner's visit spends nothing). */
export async function emailConfirmPage(req: Request): Promise<ExtensionResponse> {
  await req.requireSession()
  const email = typeof req.query.email === "string" ? req.query.email.slice(0, 320) : ""
  const token = typeof req.query.token === "string" ? req.query.token.slice(0, 128) : ""
  const title = req.t("email.confirmTitle")
  const csrfToken = await req.csrfToken()
  return req.page(title, html`<h1>${title}</h1><p>${req.t("email.confirmIntro", { email })}</p>
${form(req, csrfToken, "email/confirm", html`<input type="hidden" name="email" value="${email}"><input type="hidden" name="token" value="${token}"><button type="submit">${req.t("email.confirmSubmit")}</button>`)}`)
}
