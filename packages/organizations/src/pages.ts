/**
 * The invitation's accept page, in the configuration's theme and the request's language.
 * It shows nothing of an invitation without its token: a wrong token, a missing, used,
 * revoked or expired invitation all get the same "invalid or expired" page.
 * @module
 */
import { html, type ExtensionRequest, type ExtensionResponse, type SafeHtml } from "@portcullis/core/extension"
import { openInvitation, type OrganizationsLocals } from "./operations.js"
import { normaliseEmail } from "./validation.js"

type Request = ExtensionRequest<OrganizationsLocals>

/** The role's name in the request's language (the app's roles by their own name). */
export function roleLabel(req: Pick<Request, "t">, role: string): string {
  const key = `role.${role}`
  const label = req.t(key)
  return label === key ? role : label
}

/** A path on the site's own origin from `value`, else `fallback`: a callback never leaves the site. */
export function sameOriginUrl(authUrl: string, value: unknown, fallback: string): string {
  const origin = new URL(authUrl).origin
  if (typeof value !== "string" || value === "") return fallback
  try {
    const url = new URL(value, origin)
    return url.origin === origin ? url.href : fallback
  } catch {
    return fallback
  }
}

/** The page of a link that leads nowhere; the same for every reason. */
export function invalidInvitationPage(req: Request): ExtensionResponse {
  const title = req.t("accept.invalidTitle")
  return req.page(title, html`<h1>${title}</h1><p role="alert">${req.t("accept.invalid")}</p>`, 410)
}

/** `GET invitations/:invitationId?token=…`: what the invitee sees, by whether and as whom they are signed in. */
export async function acceptPage(req: Request): Promise<ExtensionResponse> {
  const { store } = req.locals
  const token = req.query.token
  const open = await openInvitation(store, req.locals.roles, req.params.invitationId, token)
  if (!open) return invalidInvitationPage(req)
  const { invitation, organization } = open
  const inviter = await req.locals.getUser(invitation.invitedBy)
  const values = { organization: organization.name, inviter: inviter?.name || inviter?.email || organization.name, role: roleLabel(req, invitation.role), email: invitation.email }
  const title = req.t("accept.title")
  const heading = req.t("accept.heading", values)
  const intro = html`<h1>${heading}</h1><p>${req.t("accept.intro", values)}</p>`
  const here = req.url.href
  const session = await req.session()

  if (!session) {
    const signIn = new URL(`${req.authUrl}/signin`)
    signIn.searchParams.set("callbackUrl", here)
    const signUp = new URL(`${req.authUrl}/password/signup`)
    signUp.searchParams.set("callbackUrl", here)
    signUp.searchParams.set("email", invitation.email)
    return req.page(title, html`${intro}
<p>${req.t("accept.signedOut", values)}</p>
<p class="center actions"><a class="button" href="${signIn.href}">${req.t("accept.signIn")}</a></p>
${req.locals.signUp && html`<p class="center">${req.t("accept.noAccount")} <a href="${signUp.href}">${req.t("accept.signUp", values)}</a></p>`}`)
  }

  const user = await req.locals.getUser(session.userId)
  const current = user?.email ?? session.email ?? ""
  const csrfToken = await req.csrfToken()
  const signOut = (message: string): SafeHtml => html`<p role="alert">${message}</p>
<form method="post" action="${`${req.authUrl}/signout`}">
<input type="hidden" name="csrfToken" value="${csrfToken}">
<input type="hidden" name="callbackUrl" value="${here}">
<button type="submit">${req.t("accept.signOut")}</button>
</form>`
  if (normaliseEmail(current) !== invitation.email) return req.page(title, html`${intro}${signOut(req.t("accept.mismatch", { ...values, current }))}`)
  if (!user?.emailVerified) return req.page(title, html`${intro}${signOut(req.t("accept.unverified", values))}`)

  const callbackUrl = sameOriginUrl(req.authUrl, req.query.callbackUrl, "")
  return req.page(title, html`${intro}
<form method="post" action="${`${req.authUrl}/organizations/invitations/${encodeURIComponent(invitation.id)}/accept`}">
<input type="hidden" name="csrfToken" value="${csrfToken}">
<input type="hidden" name="token" value="${token}">
${callbackUrl && html`<input type="hidden" name="callbackUrl" value="${callbackUrl}">`}
<button type="submit">${req.t("accept.button")}</button>
</form>`)
}
