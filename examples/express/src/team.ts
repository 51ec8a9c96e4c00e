import express from "express"
import { extensions, getCsrfToken, getSession } from "@portcullis/express"
import { messages } from "@portcullis/organizations"
import type { DemoAuthConfig } from "./auth.ts"
import { teamPage, type TeamOrganization } from "./views.ts"

/** What each change says once done, by the `?notice=` key it redirects with. */
const notices: Record<string, string> = {
  created: "Organization created. It is your active one if you had none.",
  switched: "Active organization changed.",
  invited: "Invitation sent: the link is in the mail catcher (printed in the demo's terminal).",
  role: "Role changed.",
  removed: "Member removed.",
  revoked: "Invitation revoked.",
  left: "You left the organization.",
}

/**
 * A refusal as a sentence, by the `?problem=` code it redirects with: organizations' own
 * sentences for its codes (`messages.en["error.<code>"]`), and the demo's for the rest.
 * Only known codes are shown, never text from the URL, so a crafted link can't put words on the page.
 */
function problemText(code: unknown): string | undefined {
  if (typeof code !== "string") return undefined
  const own: Record<string, string> = {
    "rate-limited": "Too many changes in a short time: wait a minute, then try again.",
    unavailable: "The organizations store is not answering: try again in a moment.",
  }
  const catalog = messages.en as Readonly<Record<string, string>>
  // Own keys only: `?problem=constructor` must not find Object's.
  if (Object.hasOwn(own, code)) return own[code]
  return /^[a-z-]+$/.test(code) && Object.hasOwn(catalog, `error.${code}`) ? catalog[`error.${code}`] : undefined
}

/** The refusal code of an error a server function threw, or `undefined` for one the error handler takes (signed out, CSRF, bugs). */
function refusal(error: unknown): string | undefined {
  const { type, code } = error as { type?: string; code?: unknown }
  if (type === "ExtensionRequestError" && typeof code === "string") return code
  if (type === "RateLimited") return "rate-limited"
  if (type === "ServiceUnavailable") return "unavailable"
  return undefined
}

// The roles the Team page offers to hand out. Only an owner may grant `owner` (the server
// refuses anything above the caller's role anyway; this keeps the select honest).
const grantableBy = (role: string) => (role === "owner" ? ["owner", "admin", "member"] : ["admin", "member"])

/**
 * The Team page (`/team`) and the forms it posts: each change calls organizations' server
 * functions (`extensions(req, config).organizations`) and redirects back with a notice, or
 * with the refusal as a readable sentence.
 */
export function teamRoutes(config: DemoAuthConfig): express.Router {
  const router = express.Router()
  const form = express.urlencoded({ extended: false, limit: "4kb" })

  router.get("/team", async (req, res, next) => {
    try {
      const { organizations: orgs } = await extensions(req, config)
      const { organizations: mine, active } = await orgs.list()
      const session = await getSession(req, config)
      const organizations: TeamOrganization[] = []
      for (const org of mine) {
        // Each of these asks the store, as every `can()` does: a role changed or a member
        // removed a moment ago shows at this page load.
        const scope = { organizationId: org.id }
        const [invite, changeRoles, removeMembers] = await Promise.all([orgs.can("member:invite", scope), orgs.can("member:role", scope), orgs.can("member:remove", scope)])
        organizations.push({
          ...org,
          active: org.id === active,
          members: await orgs.members(org.id),
          invitations: invite ? await orgs.invitations(org.id) : null,
          may: { invite, changeRoles, removeMembers },
          grantable: grantableBy(org.role),
        })
      }
      res.type("html").send(
        teamPage({
          csrfToken: await getCsrfToken(req, res, config),
          userId: String(session?.user?.id ?? ""),
          organizations,
          notice: typeof req.query.notice === "string" && Object.hasOwn(notices, req.query.notice) ? notices[req.query.notice] : undefined,
          problem: problemText(req.query.problem),
        }),
      )
    } catch (error) {
      // A member removed between `list()` and `members()` sees the page again without it.
      const code = refusal(error)
      if (code === "not-found" && req.query.problem !== code) return res.redirect(303, "/team?problem=not-found")
      next(error)
    }
  })

  /**
   * A change posted by one of the Team page's forms. The forms carry the browser's CSRF token:
   * `extensions(req, config)` has core check it against the CSRF cookie (double submit) and
   * the request's origin before any server function runs, as for the demo's other forms.
   */
  const change = (path: string, act: (orgs: Awaited<ReturnType<typeof extensions<DemoAuthConfig>>>["organizations"], req: express.Request) => Promise<unknown>, notice: string) =>
    router.post(path, form, async (req, res, next) => {
      try {
        const { organizations: orgs } = await extensions(req, config)
        await act(orgs, req)
        res.redirect(303, `/team?notice=${notice}`)
      } catch (error) {
        const code = refusal(error)
        if (code) return res.redirect(303, `/team?problem=${encodeURIComponent(code)}`)
        next(error)
      }
    })

  const field = (req: express.Request, name: string) => String(req.body?.[name] ?? "")
  const param = (req: express.Request, name: string) => String(req.params[name] ?? "")
  // A role as posted: organizations checks it is one of the configured roles (`unknown-role` otherwise).
  const role = (req: express.Request) => (field(req, "role") || "member") as "member"

  change("/team/create", (orgs, req) => orgs.create({ name: field(req, "name") }), "created")
  change("/team/active", (orgs, req) => orgs.setActive(field(req, "organizationId")), "switched")
  change("/team/:id/invite", (orgs, req) => orgs.invite(param(req, "id"), { email: field(req, "email"), role: role(req) }), "invited")
  change("/team/:id/members/:userId/role", (orgs, req) => orgs.setRole(param(req, "id"), param(req, "userId"), role(req)), "role")
  change("/team/:id/members/:userId/remove", (orgs, req) => orgs.removeMember(param(req, "id"), param(req, "userId")), "removed")
  change("/team/:id/invitations/:invitationId/revoke", (orgs, req) => orgs.revokeInvitation(param(req, "id"), param(req, "invitationId")), "revoked")
  change("/team/:id/leave", (orgs, req) => orgs.leave(param(req, "id")), "left")

  return router
}
