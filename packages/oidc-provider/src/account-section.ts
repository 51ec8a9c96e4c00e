/**
 * The provider's section of the account center (`Extension.accountSection`): the apps the
 * user allowed — name, what they may do, since when — each with a form removing its access,
 * posted to this extension's `consents/revoke` route, which brings the browser back here.
 * @module
 */
import { html, type ExtensionAccountSection, type ExtensionAccountSectionInput } from "@portcullis/core/extension"
import type { Locals } from "./locals.js"
import { scopeSentence } from "./pages.js"

/** The section, or `undefined` when the user allowed no app (nothing to show or do). */
export async function accountSection({ session, locals, t, locale, authUrl, csrfToken }: ExtensionAccountSectionInput<Locals>): Promise<ExtensionAccountSection | undefined> {
  const consents = await locals.store.listConsents(session.userId)
  if (!consents.length) return undefined
  const token = await csrfToken()
  const day = new Intl.DateTimeFormat(locale, { dateStyle: "long", timeZone: "UTC" })
  const items = await Promise.all(consents.map(async (c) => {
    const client = locals.clients.get(c.clientId) ?? (await locals.store.getClient(c.clientId))
    const name = client?.name ?? c.clientId
    const scopes = c.scope.split(" ").filter(Boolean).map((s) => scopeSentence(t, s)).join(", ")
    return html`<li><strong>${name}</strong>
      <p>${t("consents.allowed", { scopes })}</p>
      <p><small>${t("account.since", { date: day.format(c.createdAt) })}</small></p>
      <form method="post" action="${`${authUrl}/oidc/consents/revoke`}">
        <input type="hidden" name="csrfToken" value="${token}">
        <input type="hidden" name="clientId" value="${c.clientId}">
        <input type="hidden" name="returnTo" value="account">
        <button type="submit">${t("account.revoke", { client: name })}</button>
      </form></li>`
  }))
  return { heading: t("consents.title"), body: html`<ul>${items}</ul>` }
}
