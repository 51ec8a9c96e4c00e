import type { Session } from "@portcullis/express"
import type { InvitationDetails, MemberDetails, OrganizationSummary } from "@portcullis/organizations"

const escape = (s: unknown) =>
  String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

// The Team link only for the signed-in: a signed-out visitor has no organizations to see.
const shell = (title: string, body: string, nav: { signedIn: boolean } = { signedIn: true }) => `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<meta name="color-scheme" content="light dark">
<style>
  :root { color-scheme: light dark; --text: #1f2937; --page: #f9fafb; --surface: #f3f4f6; --brand: #4f46e5; --brand-text: #fff; --link: #4338ca; }
  @media (prefers-color-scheme: dark) {
    :root { --text: #eceef3; --page: #111318; --surface: #1c1f26; --brand: #8ea4ff; --brand-text: #0f1320; --link: #aab8ff; }
  }
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; color: var(--text); background: var(--page); }
  a { color: var(--link); }
  a.button, button { display: inline-block; background: var(--brand); color: var(--brand-text); padding: .5rem 1rem; border-radius: .5rem; text-decoration: none; border: 0; font: inherit; cursor: pointer; }
  pre { background: var(--surface); padding: 1rem; border-radius: .5rem; overflow: auto; }
  nav a { margin-right: 1rem; }
  table { border-collapse: collapse; margin: .5rem 0 1rem; }
  th, td { text-align: left; padding: .25rem .75rem .25rem 0; vertical-align: middle; }
  td form { display: inline; }
  select, input { font: inherit; }
  .flash { padding: .5rem 1rem; border-radius: .5rem; background: #ecfdf5; color: #065f46; }
  .flash.problem { background: #fef2f2; color: #991b1b; }
  @media (prefers-color-scheme: dark) { .flash { background: #0f2e25; color: #a7f3d0; } .flash.problem { background: #3b1c20; color: #ffd0d0; } }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
</style></head>
<body><nav><a href="/">Home</a><a href="/private">Private page</a>${nav.signedIn ? `<a href="/auth/account" id="nav-account">Your account</a><a href="/team" id="nav-team">Team</a><a href="/auth/admin" id="nav-admin">Admin</a>` : ""}</nav><main>${body}</main></body></html>`

/**
 * The impersonation banner for the demo's own pages (`session.admin`, which the admin console
 * adds while an admin acts as the user): who, by whom, until when, and where to end it (the
 * account center's banner has the one-click end button, with its CSRF token).
 */
function impersonationBanner(session: Session | null): string {
  const field = (session as { admin?: { impersonatedBy?: { id: string; email: string | null }; until?: string } } | null)?.admin
  if (!field?.impersonatedBy || !field.until) return ""
  return `<div class="flash problem" role="region" aria-label="Impersonation" id="impersonation-banner"><p>You are acting as <strong>${escape(session?.user?.email)}</strong>: an impersonation by ${escape(field.impersonatedBy.email ?? field.impersonatedBy.id)}, until ${escape(field.until.replace("T", " ").slice(0, 16))} UTC.
<a href="/auth/account">End it on your account page</a>.</p></div>`
}

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
      { signedIn: false },
    )
  }
  // `session.organizations` is what the organizations extension adds to every session answer.
  const active = (session as { organizations?: { active?: OrganizationSummary | null } }).organizations?.active
  const team = active
    ? `<p id="active-organization">Active organization: <strong>${escape(active.name)}</strong> (${escape(roleLabel(active.role))}). <a href="/team">Your team</a></p>`
    : `<p id="active-organization">No active organization. <a href="/team">Create or join one</a> on the Team page.</p>`
  return shell(
    "Portcullis demo",
    `${impersonationBanner(session)}<h1>Portcullis demo</h1>
<p id="status">Signed in as <strong id="user-name">${escape(session.user?.name)}</strong> (<span id="user-email">${escape(session.user?.email)}</span>).</p>
${team}
<h2>Your session</h2>
<pre id="session">${escape(JSON.stringify(session, null, 2))}</pre>
<p><a class="button" id="sign-out" href="/auth/signout?callbackUrl=%2F">Sign out</a></p>`,
  )
}

const when = (date: Date | null) => (date ? `<time datetime="${escape(date.toISOString())}">${escape(date.toISOString().replace("T", " ").slice(0, 16))} UTC</time>` : "unknown")

export function privatePage(session: Session): string {
  return shell(
    "Private",
    `${impersonationBanner(session)}<h1>Private page</h1><p>Only signed-in users see this, ${escape(session.user?.name)}.</p>
<p>Your profile, email address, passkeys, password, two-factor authentication and sessions are in
<a href="/auth/account" id="account-link">your account</a> — the account center Portcullis serves
(<code>@portcullis/account</code>), themed and translated like the sign-in page.</p>`,
  )
}


/** A role as people read it: organizations' own names for the built-in roles, an app role by its name. */
export const roleLabel = (role: string) => ({ owner: "Owner", admin: "Admin", member: "Member" })[role] ?? role

/** One organization of the Team page, with what the viewer may do in it (each from `can()`). */
export interface TeamOrganization extends OrganizationSummary {
  active: boolean
  members: MemberDetails[]
  /** Pending invitations; `null` when the viewer may not invite (so may not see them). */
  invitations: InvitationDetails[] | null
  may: { invite: boolean; changeRoles: boolean; removeMembers: boolean }
  /** The roles the viewer may hand out here (by invitation or role change). */
  grantable: string[]
}

/** What the Team page shows. */
export interface TeamState {
  csrfToken: string
  /** The viewer's user id: their own row gets "Leave" instead of role and remove buttons. */
  userId: string
  organizations: TeamOrganization[]
  notice?: string
  problem?: string
}

const csrfField = (csrfToken: string) => `<input type="hidden" name="csrfToken" value="${escape(csrfToken)}">`
const roleOptions = (roles: string[], selected?: string) =>
  roles.map((role) => `<option value="${escape(role)}"${role === selected ? " selected" : ""}>${escape(roleLabel(role))}</option>`).join("")

function memberRow(org: TeamOrganization, member: MemberDetails, state: TeamState): string {
  const who = member.name || member.email || member.userId
  const self = member.userId === state.userId
  const base = `/team/${encodeURIComponent(org.id)}/members/${encodeURIComponent(member.userId)}`
  const controls: string[] = []
  // The last owner can't leave (an organization always has an owner): no button that would only be refused.
  const lastOwner = member.role === "owner" && org.members.filter((m) => m.role === "owner").length === 1
  if (self && !lastOwner) {
    controls.push(`<form method="post" action="/team/${escape(encodeURIComponent(org.id))}/leave">${csrfField(state.csrfToken)}<button type="submit" class="leave">Leave</button></form>`)
  } else if (!self && org.grantable.includes(member.role)) {
    // Nobody grants a role above their own, nor manages someone above them: such roles and
    // rows get no controls (the server refuses them anyway).
    if (org.may.changeRoles) {
      controls.push(`<form method="post" action="${escape(base)}/role" class="set-role">${csrfField(state.csrfToken)}<select name="role" aria-label="Role of ${escape(who)}">${roleOptions(org.grantable, member.role)}</select> <button type="submit">Change role</button></form>`)
    }
    if (org.may.removeMembers) {
      controls.push(`<form method="post" action="${escape(base)}/remove">${csrfField(state.csrfToken)}<button type="submit" class="remove" aria-label="Remove ${escape(who)}">Remove</button></form>`)
    }
  }
  return `<tr class="member" data-user-id="${escape(member.userId)}" data-email="${escape(member.email)}" data-role="${escape(member.role)}">
  <td class="member-name">${escape(who)}${self ? " (you)" : ""}</td><td class="member-email">${escape(member.email ?? "")}</td><td class="member-role">${escape(roleLabel(member.role))}</td><td>${controls.join(" ")}</td>
</tr>`
}

function invitationsBlock(org: TeamOrganization, state: TeamState): string {
  if (!org.invitations) return ""
  const rows = org.invitations
    .map(
      (i) => `<tr class="invitation" data-invitation-id="${escape(i.id)}" data-email="${escape(i.email)}">
  <td>${escape(i.email)}</td><td>${escape(roleLabel(i.role))}</td><td>${when(new Date(i.expiresAt))}</td>
  <td><form method="post" action="/team/${escape(encodeURIComponent(org.id))}/invitations/${escape(encodeURIComponent(i.id))}/revoke">${csrfField(state.csrfToken)}<button type="submit" class="revoke" aria-label="Revoke the invitation of ${escape(i.email)}">Revoke</button></form></td>
</tr>`,
    )
    .join("\n")
  const emailId = `invite-email-${escape(org.id)}`
  const roleId = `invite-role-${escape(org.id)}`
  return `<h3>Pending invitations</h3>
${rows ? `<table class="invitations"><thead><tr><th>Email</th><th>Role</th><th>Expires</th><th><span class="visually-hidden">Revoke</span></th></tr></thead><tbody>${rows}</tbody></table>` : `<p class="no-invitations">None.</p>`}
<h3>Invite someone</h3>
<form method="post" action="/team/${escape(encodeURIComponent(org.id))}/invite" class="invite">${csrfField(state.csrfToken)}
<label for="${emailId}">Email</label> <input id="${emailId}" name="email" type="email" autocomplete="off" required>
<label for="${roleId}">Role</label> <select id="${roleId}" name="role">${roleOptions(org.grantable, "member")}</select>
<button type="submit">Send invitation</button></form>
<p>The invitation is mailed through the demo's mail catcher: its link is printed in the terminal.</p>`
}

function organizationSection(org: TeamOrganization, state: TeamState): string {
  return `<section class="team" data-organization-id="${escape(org.id)}" aria-labelledby="team-${escape(org.id)}">
<h2 id="team-${escape(org.id)}">${escape(org.name)}</h2>
<h3>Members</h3>
<table class="members"><thead><tr><th>Name</th><th>Email</th><th>Role</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>
${org.members.map((m) => memberRow(org, m, state)).join("\n")}
</tbody></table>
${invitationsBlock(org, state)}
</section>`
}

/**
 * The Team page: my organizations (my role, which is active, a switch for the others), a
 * form to create one, and per organization its members — with role changes, removals,
 * invitations only where `can()` says the viewer may.
 */
export function teamPage(state: TeamState): string {
  const active = state.organizations.find((o) => o.active)
  const mayList = active && [active.may.invite && "invite members", active.may.changeRoles && "change roles", active.may.removeMembers && "remove members"].filter(Boolean)
  const activeLine = active
    ? `<p id="active-organization">Active organization: <strong>${escape(active.name)}</strong> (${escape(roleLabel(active.role))}).${
        mayList && mayList.length ? ` <span id="active-permissions">In it you may ${escape(mayList.join(", "))}.</span>` : ""
      }</p>`
    : `<p id="active-organization">No active organization.</p>`
  const rows = state.organizations
    .map(
      (o) => `<tr class="organization" data-organization-id="${escape(o.id)}" data-name="${escape(o.name)}" data-role="${escape(o.role)}"${o.active ? " data-active" : ""}>
  <td class="organization-name">${escape(o.name)}</td><td class="organization-role">${escape(roleLabel(o.role))}</td>
  <td>${
    o.active
      ? `<strong class="active-marker">Active</strong>`
      : `<form method="post" action="/team/active">${csrfField(state.csrfToken)}<input type="hidden" name="organizationId" value="${escape(o.id)}"><button type="submit" class="switch" aria-label="Make ${escape(o.name)} active">Make active</button></form>`
  }</td>
</tr>`,
    )
    .join("\n")
  return shell(
    "Team",
    `<h1>Team</h1>
${state.notice ? `<p id="notice" class="flash" role="status">${escape(state.notice)}</p>` : ""}${state.problem ? `<p id="problem" class="flash problem" role="alert">${escape(state.problem)}</p>` : ""}
${activeLine}
<h2>Your organizations</h2>
${
  rows
    ? `<table id="organizations"><thead><tr><th>Organization</th><th>Your role</th><th><span class="visually-hidden">Active</span></th></tr></thead><tbody>
${rows}
</tbody></table>`
    : `<p id="no-organizations">You belong to no organization yet. Create one, or accept an invitation.</p>`
}
<form method="post" action="/team/create" id="create-organization">${csrfField(state.csrfToken)}
<label for="organization-name">New organization's name</label> <input id="organization-name" name="name" maxlength="100" required>
<button type="submit">Create organization</button></form>
${state.organizations.map((o) => organizationSection(o, state)).join("\n")}`,
  )
}
