import type { Session, SessionInfo, TotpEnrollment, TwoFactorStatus } from "@portcullis/express"

const escape = (s: unknown) =>
  String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

const shell = (title: string, body: string) => `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; color: #1f2937; }
  a.button, button { display: inline-block; background: #4f46e5; color: #fff; padding: .5rem 1rem; border-radius: .5rem; text-decoration: none; border: 0; font: inherit; cursor: pointer; }
  pre { background: #f3f4f6; padding: 1rem; border-radius: .5rem; overflow: auto; }
  nav a { margin-right: 1rem; }
</style></head>
<body><nav><a href="/">Home</a><a href="/private">Private page</a><a href="/sessions" id="nav-sessions">Your sessions</a><a href="/two-factor" id="nav-two-factor">Two-factor</a></nav>${body}</body></html>`

export function homePage(session: Session | null): string {
  if (!session) {
    return shell(
      "Portcullis demo",
      `<h1>Portcullis demo</h1>
<p id="status">You are not signed in.</p>
<p>Sign in with the demo account <code>demo</code> / <code>portcullis</code>, with the local
OpenID provider (login <code>demo</code>, any password), with a passkey, by email, or with a
password account of your own (<a href="/auth/password/signup" id="sign-up">create one</a>) —
links are printed in the terminal that runs the demo.</p>
<p><a class="button" id="sign-in" href="/auth/signin?callbackUrl=%2F">Sign in</a></p>`,
    )
  }
  return shell(
    "Portcullis demo",
    `<h1>Portcullis demo</h1>
<p id="status">Signed in as <strong id="user-name">${escape(session.user?.name)}</strong> (<span id="user-email">${escape(session.user?.email)}</span>).</p>
<h2>Your session</h2>
<pre id="session">${escape(JSON.stringify(session, null, 2))}</pre>
<p><a class="button" id="sign-out" href="/auth/signout?callbackUrl=%2F">Sign out</a></p>`,
  )
}

export function privatePage(session: Session): string {
  return shell("Private", `<h1>Private page</h1><p>Only signed-in users see this, ${escape(session.user?.name)}.</p>`)
}

const when = (date: Date | null) => (date ? `<time datetime="${escape(date.toISOString())}">${escape(date.toISOString().replace("T", " ").slice(0, 16))} UTC</time>` : "unknown")

/** "Your sessions": the list, a revoke button per other session, and one for all others. */
export function sessionsPage(sessions: SessionInfo[], csrfToken: string, revoked: unknown): string {
  const rows = sessions
    .map(
      (s) => `<tr class="session${s.current ? " current" : ""}" data-session-id="${escape(s.id)}">
  <td>${escape(s.userAgent ?? "Unknown browser")}${s.current ? ` <strong class="current-marker">(this browser)</strong>` : ""}</td>
  <td>${escape(s.ipAddress ?? "unknown")}</td>
  <td>${when(s.createdAt)}</td>
  <td>${when(s.lastSeenAt)}</td>
  <td>${
    s.current
      ? ""
      : `<form method="post" action="/sessions/revoke"><input type="hidden" name="csrfToken" value="${escape(csrfToken)}"><input type="hidden" name="id" value="${escape(s.id)}"><button type="submit" class="revoke">Revoke</button></form>`
  }</td>
</tr>`,
    )
    .join("\n")
  const notice = typeof revoked === "string" ? `<p id="notice">${revoked === "0" ? "Nothing to revoke: that session had already ended." : `Revoked ${escape(revoked)} session${revoked === "1" ? "" : "s"}.`}</p>` : ""
  return shell(
    "Your sessions",
    `<h1>Your sessions</h1>
${notice}
<p>Every browser signed in to your account. Revoke any you do not recognise: it is signed out on its next request.</p>
<table id="sessions"><thead><tr><th>Browser</th><th>Address</th><th>Signed in</th><th>Last seen</th><th></th></tr></thead>
<tbody>
${rows}
</tbody></table>
${
  sessions.length > 1
    ? `<form method="post" action="/sessions/revoke-others"><input type="hidden" name="csrfToken" value="${escape(csrfToken)}"><button type="submit" id="revoke-others">Sign out all other sessions</button></form>`
    : ""
}`,
  )
}

const codeForm = (action: string, csrfToken: string, label: string, button: string, id: string) =>
  `<form method="post" action="${action}" id="${id}"><input type="hidden" name="csrfToken" value="${escape(csrfToken)}">
<label>${escape(label)} <input name="code" inputmode="numeric" autocomplete="one-time-code" required></label> <button type="submit">${escape(button)}</button></form>`

/** Two-factor settings: turn it on (QR code, then a first code), see the backup codes once, turn it off. */
export function twoFactorPage(state: { status: TwoFactorStatus; csrfToken: string; enrollment?: TotpEnrollment; backupCodes?: string[]; notice?: string }): string {
  const { status, csrfToken, enrollment, backupCodes, notice } = state
  let body: string
  if (backupCodes) {
    body = `<p id="two-factor-state">Two-factor authentication is on.</p>
<p>Keep these backup codes somewhere safe. Each works once, when your authenticator app is not at hand. They are shown only now.</p>
<ul id="backup-codes">${backupCodes.map((c) => `<li><code>${escape(c)}</code></li>`).join("")}</ul>`
  } else if (enrollment) {
    body = `<p id="two-factor-state">Scan this code with your authenticator app, then enter the code it shows.</p>
<div id="qr" style="width:200px">${enrollment.qrSvg}</div>
<p>Can't scan it? Enter this key: <code id="totp-secret">${escape(enrollment.secret)}</code></p>
${codeForm("/two-factor/confirm", csrfToken, "Code", "Turn on", "confirm-two-factor")}`
  } else if (status.enabled) {
    body = `<p id="two-factor-state">Two-factor authentication is on (${status.backupCodesLeft} backup codes left).</p>
${codeForm("/two-factor/disable", csrfToken, "Current code", "Turn off", "disable-two-factor")}`
  } else {
    body = `<p id="two-factor-state">Two-factor authentication is off.</p>
<form method="post" action="/two-factor/start"><input type="hidden" name="csrfToken" value="${escape(csrfToken)}"><button type="submit" id="start-two-factor">Turn on two-factor authentication</button></form>`
  }
  return shell("Two-factor authentication", `<h1>Two-factor authentication</h1>${notice ? `<p id="notice">${escape(notice)}</p>` : ""}\n${body}`)
}
