/**
 * The console's pages, in the configuration's theme and the request's language (`req.page`):
 * the users list, a user's page, the charts. Every form carries the CSRF token; every value
 * shown goes through `html`, which escapes it.
 * @module
 */
import { html, raw, type ExtensionRequest, type ExtensionResponse, type SafeHtml } from "@portcullis/core/extension"
import type { AdminLocals } from "./locals.js"
import type { ListedUser, UserDetails } from "./operations.js"
import type { SignInStats } from "./stats.js"
import type { Ban } from "./store/types.js"
import { barChart, dataTable } from "./charts.js"

type Request = ExtensionRequest<AdminLocals>

/** The console's own styles: a wider card, tables, the charts — colours from the theme's properties. */
const STYLE = raw(`<style>
.card:has(.pc-admin) { max-width: 64rem; width: 100%; }
.pc-admin nav ul { list-style: none; display: flex; gap: 1rem; padding: 0; margin: 0 0 1rem; flex-wrap: wrap; }
.pc-admin a { color: var(--pc-text); text-decoration: underline; }
.pc-admin .pc-table { width: 100%; border-collapse: collapse; margin: 0.5rem 0 1.5rem; }
.pc-admin .pc-table caption { text-align: start; font-weight: 600; padding: 0.25rem 0; }
.pc-admin .pc-table th, .pc-admin .pc-table td { text-align: start; padding: 0.35rem 0.5rem; border-bottom: 1px solid var(--pc-border); vertical-align: top; overflow-wrap: anywhere; }
.pc-admin .pc-filters { display: flex; flex-wrap: wrap; gap: 0.75rem; align-items: end; }
.pc-admin .pc-filters > div { display: flex; flex-direction: column; min-width: 8rem; }
.pc-admin .pc-actions form { margin: 0 0 1rem; }
.pc-admin .pc-status { font-weight: 600; }
.pc-admin .pc-chart { width: 100%; height: auto; margin-top: 0.5rem; }
.pc-admin .pc-axis { stroke: var(--pc-muted); stroke-width: 1; }
.pc-admin .pc-axis-label { fill: var(--pc-text); font-size: 12px; }
.pc-admin .pc-bar-brand { fill: var(--pc-brand); }
.pc-admin .pc-bar-alert { fill: var(--pc-alert-text); }
.pc-admin fieldset { border: 1px solid var(--pc-border); border-radius: var(--pc-radius); padding: 0.75rem 1rem; margin: 0 0 1rem; }
</style>`)

/** The console's frame: styles, navigation, the heading, a notice from the last action. */
function frame(req: Request, heading: string, body: SafeHtml): SafeHtml {
  const base = `${req.authUrl}/admin`
  const notice = noticeOf(req)
  return html`${STYLE}<div class="pc-admin">
<nav aria-label="${req.t("title")}"><ul><li><a href="${base}">${req.t("users")}</a></li><li><a href="${`${base}/charts`}">${req.t("charts")}</a></li></ul></nav>
<h1>${heading}</h1>
${notice}
${body}
</div>`
}

/** `?done=` / `?error=` from the redirect after a form: a known key's sentence only (never the query's text). */
function noticeOf(req: Request): SafeHtml | "" {
  const done = req.query.done
  if (done && /^[a-zA-Z]+$/.test(done) && req.t(`done.${done}`) !== `done.${done}`) return html`<p role="status">${req.t(`done.${done}`)}</p>`
  const error = req.query.error
  if (error && /^[a-zA-Z-]+$/.test(error) && req.t(`error.${error}`) !== `error.${error}`) return html`<p role="alert">${req.t(`error.${error}`)}</p>`
  return ""
}

function date(req: Request, value: Date | string | null | undefined): string {
  if (!value) return "—"
  const at = value instanceof Date ? value : new Date(value)
  return Number.isNaN(at.getTime()) ? "—" : new Intl.DateTimeFormat(req.locale, { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }).format(at) + " UTC"
}

function banLine(req: Request, ban: Ban): string {
  return ban.expires ? req.t("bannedUntil", { date: date(req, ban.expires), reason: ban.reason }) : req.t("bannedIndefinitely", { reason: ban.reason })
}

/** The users list with search, filters and the next page. */
export function usersPage(req: Request, page: { supported: boolean; users: ListedUser[]; next: string | null }, filters: { q: string; verified: string; banned: string }): ExtensionResponse {
  const base = `${req.authUrl}/admin`
  const choice = (name: string, label: string, current: string) => html`<div><label for="${`f-${name}`}">${label}</label>
<select id="${`f-${name}`}" name="${name}">
<option value=""${current === "" ? raw(" selected") : ""}>${req.t("any")}</option>
<option value="yes"${current === "yes" ? raw(" selected") : ""}>${req.t("yes")}</option>
<option value="no"${current === "no" ? raw(" selected") : ""}>${req.t("no")}</option>
</select></div>`
  const search = html`<form method="get" action="${base}" role="search" class="pc-filters">
<div><label for="f-q">${req.t("search")}</label><input id="f-q" type="search" name="q" value="${filters.q}" maxlength="200"></div>
${choice("verified", req.t("verified"), filters.verified)}
${choice("banned", req.t("banned"), filters.banned)}
<button type="submit">${req.t("searchButton")}</button>
</form>`
  const byId = html`<form method="get" action="${`${base}/open`}" class="pc-filters">
<div><label for="f-id">${req.t("userId")}</label><input id="f-id" name="id" required maxlength="256"></div>
<button type="submit">${req.t("open")}</button>
</form>`
  if (!page.supported) {
    return req.page(req.t("title"), frame(req, req.t("users"), html`<p role="status">${req.t("listUnsupported")}</p><h2>${req.t("openById")}</h2>${byId}`))
  }
  const rows = page.users.map(
    (u) => html`<tr><th scope="row"><a href="${`${base}/users/${encodeURIComponent(u.id)}`}">${u.email ?? u.id}</a></th><td>${u.name ?? "—"}</td><td>${u.emailVerified ? req.t("yes") : req.t("no")}</td><td>${u.ban ? req.t("banned") : req.t("active")}</td></tr>`,
  )
  const table = page.users.length
    ? html`<table class="pc-table"><caption>${req.t("users")}</caption><thead><tr><th scope="col">${req.t("email")}</th><th scope="col">${req.t("name")}</th><th scope="col">${req.t("verified")}</th><th scope="col">${req.t("status")}</th></tr></thead><tbody>${rows}</tbody></table>`
    : html`<p role="status">${req.t("noUsers")}</p>`
  let more: SafeHtml | "" = ""
  if (page.next) {
    const next = new URL(base)
    for (const [k, v] of Object.entries(filters)) if (v) next.searchParams.set(k, v)
    next.searchParams.set("cursor", page.next)
    more = html`<p><a href="${next.href}">${req.t("nextPage")}</a></p>`
  }
  return req.page(req.t("title"), frame(req, req.t("users"), html`${search}${table}${more}<h2>${req.t("openById")}</h2>${byId}`))
}

/** A hidden CSRF field and a submit button, posting to `action`. */
function actionForm(action: string, csrfToken: string, label: string, fields: SafeHtml | "" = ""): SafeHtml {
  return html`<form method="post" action="${action}"><input type="hidden" name="csrfToken" value="${csrfToken}">${fields}<button type="submit">${label}</button></form>`
}

/** One user's page: details, ban, sessions, recovery, audit events. */
export async function userPage(req: Request, details: UserDetails): Promise<ExtensionResponse> {
  const { user, ban, isAdmin, twoFactor, sessions, events, organizations, waysIn, canImpersonate } = details
  const base = `${req.authUrl}/admin/users/${encodeURIComponent(user.id)}`
  const csrfToken = await req.csrfToken()
  const name = user.name || user.email || user.id
  const facts = html`<table class="pc-table"><caption>${req.t("details")}</caption><tbody>
<tr><th scope="row">${req.t("userId")}</th><td>${user.id}</td></tr>
<tr><th scope="row">${req.t("email")}</th><td>${user.email ?? "—"}</td></tr>
<tr><th scope="row">${req.t("name")}</th><td>${user.name ?? "—"}</td></tr>
<tr><th scope="row">${req.t("verified")}</th><td>${user.emailVerified ? date(req, user.emailVerified) : req.t("no")}</td></tr>
<tr><th scope="row">${req.t("twoFactor")}</th><td>${twoFactor ? req.t("on") : req.t("off")}</td></tr>
<tr><th scope="row">${req.t("status")}</th><td class="pc-status">${ban ? banLine(req, ban) : isAdmin ? req.t("admin") : req.t("active")}</td></tr>
</tbody></table>`
  const durations: Array<[string, string]> = [["", req.t("untilLifted")], ["3600", req.t("oneHour")], ["86400", req.t("oneDay")], ["604800", req.t("sevenDays")], ["2592000", req.t("thirtyDays")]]
  const banForm = isAdmin
    ? html`<p>${req.t("cannotActOnAdmin")}</p>`
    : ban
      ? actionForm(`${base}/unban`, csrfToken, req.t("unban"))
      : html`<form method="post" action="${`${base}/ban`}"><fieldset><legend>${req.t("banTitle")}</legend>
<input type="hidden" name="csrfToken" value="${csrfToken}">
<p><label for="ban-reason">${req.t("reason")}</label><br><input id="ban-reason" name="reason" required maxlength="500"></p>
<p><label for="ban-duration">${req.t("duration")}</label><br><select id="ban-duration" name="duration">${durations.map(([v, l]) => html`<option value="${v}">${l}</option>`)}</select></p>
<button type="submit">${req.t("ban")}</button></fieldset></form>`
  const sessionTable =
    sessions === null
      ? html`<p>${req.t("sessionsUnsupported")}</p>`
      : sessions.length === 0
        ? html`<p>${req.t("noSessions")}</p>`
        : html`<table class="pc-table"><caption>${req.t("sessions")}</caption><thead><tr><th scope="col">${req.t("started")}</th><th scope="col">${req.t("lastSeen")}</th><th scope="col">${req.t("expires")}</th><th scope="col">${req.t("device")}</th></tr></thead><tbody>${sessions.map(
            (s) => html`<tr><th scope="row">${date(req, s.createdAt)}</th><td>${date(req, s.lastSeenAt)}</td><td>${date(req, s.expires)}</td><td>${s.userAgent ?? "—"}</td></tr>`,
          )}</tbody></table>${isAdmin ? "" : actionForm(`${base}/revoke`, csrfToken, req.t("revoke"))}`
  const resetTwoFactor =
    twoFactor && !isAdmin
      ? html`<form method="post" action="${`${base}/reset-two-factor`}"><fieldset><legend>${req.t("resetTwoFactor")}</legend>
<input type="hidden" name="csrfToken" value="${csrfToken}">
<p><label for="reset-reason">${req.t("reason")}</label><br><input id="reset-reason" name="reason" required maxlength="500"></p>
<button type="submit">${req.t("resetTwoFactor")}</button></fieldset></form>`
      : ""
  const passwordReset = user.email && !isAdmin ? actionForm(`${base}/send-password-reset`, csrfToken, req.t("sendPasswordReset")) : ""
  const recovery = resetTwoFactor || passwordReset ? html`${resetTwoFactor}${passwordReset}` : ""
  const minutes = Math.round((req.locals.impersonation?.maxAge ?? 0) / 60)
  const impersonation = canImpersonate
    ? html`<h2>${req.t("impersonation")}</h2><div class="pc-actions"><p>${req.t("impersonationHint", { minutes })}</p>${actionForm(`${base}/impersonate`, csrfToken, req.t("impersonate"))}</div>`
    : ""
  const accounts = waysIn.accounts
  const ways = html`<h2>${req.t("linkedAccounts")}</h2>${
    accounts === null
      ? html`<p>${req.t("error.unsupported")}</p>`
      : accounts.length
        ? html`<table class="pc-table"><caption>${req.t("linkedAccounts")}</caption><thead><tr><th scope="col">${req.t("provider")}</th><th scope="col">${req.t("accountId")}</th></tr></thead><tbody>${accounts.map((a) => html`<tr><th scope="row">${a.name}</th><td>${a.providerAccountId}</td></tr>`)}</tbody></table>`
        : html`<p>${req.t("noLinkedAccounts")}</p>`
  }${waysIn.passkeys === null ? "" : html`<p>${req.t("passkeys")}: ${waysIn.passkeys}</p>`}`
  const eventTable =
    events === null
      ? html`<p>${req.t("eventsUnsupported")}</p>`
      : events.length === 0
        ? html`<p>${req.t("noEvents")}</p>`
        : html`<table class="pc-table"><caption>${req.t("events")}</caption><thead><tr><th scope="col">${req.t("time")}</th><th scope="col">${req.t("event")}</th><th scope="col">${req.t("outcome")}</th></tr></thead><tbody>${events.map(
            (e) => html`<tr><th scope="row">${date(req, e.time)}</th><td>${e.type}${e.method ? ` (${e.method})` : ""}</td><td>${e.outcome}${e.reason ? ` — ${e.reason}` : ""}</td></tr>`,
          )}</tbody></table>`
  const body = html`<p><a href="${`${req.authUrl}/admin`}">${req.t("back")}</a></p>
${facts}
${ways}
<h2>${req.t("ban")}</h2><div class="pc-actions">${banForm}</div>
<h2>${req.t("sessions")}</h2><div class="pc-actions">${sessionTable}</div>
${recovery && html`<h2>${req.t("recovery")}</h2><div class="pc-actions">${recovery}</div>`}
${impersonation}
${organizations === null ? "" : html`<h2>${req.t("organizations")}</h2>${organizations.length ? html`<table class="pc-table"><caption>${req.t("organizations")}</caption><thead><tr><th scope="col">${req.t("name")}</th><th scope="col">${req.t("role")}</th></tr></thead><tbody>${organizations.map((o) => html`<tr><th scope="row">${o.name}</th><td>${o.role}</td></tr>`)}</tbody></table>` : html`<p>${req.t("noOrganizations")}</p>`}`}
<h2>${req.t("events")}</h2>${eventTable}`
  return req.page(req.t("userTitle", { name }), frame(req, req.t("userTitle", { name }), body))
}

/** The charts: successful and failed sign-ins by method, lockouts, active users — each as SVG and as a table — and active sessions now. */
export function chartsPage(req: Request, stats: SignInStats): ExtensionResponse {
  if (!stats.supported) return req.page(req.t("charts"), frame(req, req.t("charts"), html`<p role="status">${req.t("chartsUnsupported")}</p>`))
  const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0)
  const section = (id: string, title: string, pick: "success" | "failure", tone: "brand" | "alert") => {
    const bars = stats.days.map((d) => ({ label: d.day, value: sum(d[pick]) }))
    const total = bars.reduce((a, b) => a + b.value, 0)
    const desc = `${req.t("total")}: ${total}. ${stats.methods.map((m) => `${m}: ${stats.days.reduce((a, d) => a + (d[pick][m] ?? 0), 0)}`).join(", ")}`
    return html`<h2 id="${`${id}-heading`}">${title}</h2>${barChart(id, title, desc, bars, tone)}${dataTable(title, [req.t("day"), ...stats.methods, req.t("total")], stats.days.map((d) => [d.day, ...stats.methods.map((m) => d[pick][m] ?? 0), sum(d[pick])]))}`
  }
  const lockBars = stats.days.map((d) => ({ label: d.day, value: d.lockouts }))
  const lockTotal = lockBars.reduce((a, b) => a + b.value, 0)
  const body = html`${stats.truncated ? html`<p role="status">${req.t("chartTruncated")}</p>` : ""}
${section("chart-success", req.t("chartSuccess"), "success", "brand")}
${section("chart-failure", req.t("chartFailure"), "failure", "alert")}
<h2>${req.t("chartLockouts")}</h2>${barChart("chart-lockouts", req.t("chartLockouts"), `${req.t("total")}: ${lockTotal}`, lockBars, "alert")}${dataTable(req.t("chartLockouts"), [req.t("day"), req.t("count")], stats.days.map((d) => [d.day, d.lockouts]))}
${activeSection(req, stats)}`
  return req.page(req.t("charts"), frame(req, req.t("charts"), body))
}

/** Active sessions now (a number, or why there is none) and active users per day (SVG and table). */
function activeSection(req: Request, stats: SignInStats): SafeHtml {
  const sessions = typeof stats.activeSessions === "number" ? req.t("activeSessionsNow", { count: String(stats.activeSessions) }) : req.t("activeSessionsUnavailable")
  const bars = stats.days.map((d) => ({ label: d.day, value: d.activeUsers }))
  const total = bars.reduce((a, b) => a + b.value, 0)
  return html`<h2>${req.t("activeSessions")}</h2><p id="active-sessions">${sessions}</p>
<h2>${req.t("chartActiveUsers")}</h2>${barChart("chart-active-users", req.t("chartActiveUsers"), `${req.t("total")}: ${total}`, bars, "brand")}${dataTable(req.t("chartActiveUsers"), [req.t("day"), req.t("count")], stats.days.map((d) => [d.day, d.activeUsers]))}`
}
