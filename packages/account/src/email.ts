/**
 * Starting an email change, shared by the route and the server function: the token from
 * core (`account.requestEmailChange`), and the mail to the new address — the link, or for
 * an address that is taken, a note saying so (the caller's answer is the same either way).
 * @module
 */
import type { ExtensionTools } from "@portcullis/core/extension"
import type { AccountLocals } from "./options.js"

export async function requestEmailChange(tools: ExtensionTools & { locals: AccountLocals }, userId: string, email: string): Promise<void> {
  const maxAge = tools.locals.emailChangeMaxAge
  const started = await tools.account.requestEmailChange(email, maxAge)
  const to = email.trim()
  if (started.status === "token") {
    const url = new URL(`${tools.authUrl}/account/email/confirm`)
    url.searchParams.set("email", to.toLowerCase())
    url.searchParams.set("token", started.token)
    await tools.mail({
      to,
      url: url.href,
      expires: started.expires,
      messages: {
        subject: tools.t("mail.change.subject"),
        heading: tools.t("mail.change.heading", { email: to }),
        button: tools.t("mail.change.button"),
        expires: tools.t("mail.change.expires", { hours: String(Math.max(1, Math.round(maxAge / 3600))) }),
        ignore: tools.t("mail.change.ignore"),
      },
    })
    return
  }
  // Taken: the same answer as for a free address; only this mail says so, to its owner.
  await tools.mail({
    to,
    url: `${tools.authUrl}/signin`,
    expires: new Date(Date.now() + maxAge * 1000),
    messages: {
      subject: tools.t("mail.taken.subject"),
      heading: tools.t("mail.taken.heading"),
      button: tools.t("mail.taken.button"),
      expires: tools.t("mail.taken.expires"),
      ignore: tools.t("mail.change.ignore"),
    },
  })
  await tools.audit({ type: "emailChangeRefused", outcome: "failure", userId, reason: "taken" })
}
