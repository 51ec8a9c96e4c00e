/**
 * The routes of invitations: list, create and revoke them (members with `member:invite`),
 * the accept page anyone may open, and accepting — as JSON for a client library, or as a
 * form the accept page posts, answered with a redirect (or the page, on a refusal).
 * @module
 */
import { ExtensionRequestError, html, type ExtensionRoute } from "@portcullis/core/extension"
import { organizationOperations, type OrganizationsLocals } from "../operations.js"
import { acceptPage, sameOriginUrl } from "../pages.js"

type Request = Parameters<ExtensionRoute<OrganizationsLocals>["handler"]>[0]
const ops = (req: Request) => organizationOperations(req, req.locals)

/** Whether the body came from an HTML form (the accept page) rather than a client library's JSON. */
function isFormPost(req: Request): boolean {
  const type = (req.headers.get("content-type") ?? "").toLowerCase()
  return type.startsWith("application/x-www-form-urlencoded") || type.startsWith("multipart/form-data")
}

export const invitationRoutes: ExtensionRoute<OrganizationsLocals>[] = [
  // Before ":id/…" routes of the same length, which would otherwise take "invitations" as an id.
  { method: "GET", path: "invitations/:invitationId", access: "anyone", answers: "page", handler: acceptPage },
  {
    method: "POST",
    path: "invitations/:invitationId/accept",
    rateLimit: { max: 10, window: 60 },
    async handler(req) {
      const form = isFormPost(req)
      try {
        const accepted = await ops(req).accept(req.params.invitationId!, req.body.token as string)
        if (!form) return { json: accepted }
        return { redirect: sameOriginUrl(req.authUrl, req.body.callbackUrl, new URL(req.locals.afterAccept, new URL(req.authUrl).origin).href) }
      } catch (error) {
        // A person pressed the page's button: answer with a page they can read, not JSON.
        if (!form || !(error instanceof ExtensionRequestError)) throw error
        const title = req.t("accept.failedTitle")
        const shown = req.t(`error.${error.code}`)
        return req.page(title, html`<h1>${title}</h1><p role="alert">${shown === `error.${error.code}` ? error.message : shown}</p>`, error.status)
      }
    },
  },
  { method: "GET", path: ":id/invitations", handler: async (req) => ({ json: { invitations: await ops(req).invitations(req.params.id!) } }) },
  {
    method: "POST",
    path: ":id/invitations",
    rateLimit: { max: 20, window: 3600 },
    handler: async (req) => ({ json: { invitation: await ops(req).invite(req.params.id!, req.body as never) }, status: 201 }),
  },
  {
    method: "POST",
    path: ":id/invitations/:invitationId/revoke",
    handler: async (req) => ({ json: await ops(req).revokeInvitation(req.params.id!, req.params.invitationId!) }),
  },
]
