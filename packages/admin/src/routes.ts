/**
 * The console's routes under `<basePath>/admin`: pages (`GET`), their forms (`POST`, which
 * redirect back with a notice), and the same actions as JSON for scripts (`api/…`, or a
 * `POST` with a JSON body). Core has checked the origin, the CSRF token, the session and the
 * rate limit before any handler runs; each handler checks that the caller is an admin.
 * @module
 */
import { ExtensionRequestError, StepUpRequired, html, type ExtensionRequest, type ExtensionResponse, type ExtensionRoute } from "@portcullis/core/extension"
import { requireAdmin } from "./access.js"
import type { AdminLocals } from "./locals.js"
import { adminOperations, type UserListInput } from "./operations.js"
import { chartsPage, userPage, usersPage } from "./pages.js"
import { impersonationOf } from "./impersonation.js"

type Request = ExtensionRequest<AdminLocals>
type Route = ExtensionRoute<AdminLocals>

/** `yes`/`no`/empty from a filter's `<select>` (or `true`/`false` from a script); anything else is a 400. */
function yesNo(value: string | undefined): boolean | undefined {
  if (value === undefined || value === "") return undefined
  if (value === "yes" || value === "true") return true
  if (value === "no" || value === "false") return false
  throw new ExtensionRequestError("invalid-query", "A filter is yes, no or empty", 400)
}

/** The list's query from the URL, checked (core checks the rest). */
function listInput(req: Request): UserListInput {
  const { q, verified, banned, cursor, limit } = req.query
  const input: UserListInput = {}
  if (q !== undefined && q !== "") input.search = q
  const v = yesNo(verified)
  if (v !== undefined) input.verified = v
  const b = yesNo(banned)
  if (b !== undefined) input.banned = b
  if (cursor !== undefined && cursor !== "") input.cursor = cursor
  if (limit !== undefined && limit !== "") {
    if (!/^\d{1,3}$/.test(limit)) throw new ExtensionRequestError("invalid-query", "limit must be a number", 400)
    input.limit = Number(limit)
  }
  return input
}

/** Whether a `POST` came from a script (JSON) rather than the console's form. */
function wantsJson(req: Request): boolean {
  return (req.headers.get("content-type") ?? "").toLowerCase().startsWith("application/json") || (req.headers.get("accept") ?? "").includes("application/json")
}

/**
 * A form action: JSON for a script; for the console's form a redirect back to the user's
 * page with `?done=` — or `?error=` for a refusal of the form's input (a store outage or
 * a non-admin is answered by core as such, never turned into a notice).
 */
function formAction(path: string, act: (req: Request, ops: ReturnType<typeof adminOperations>) => Promise<object>, done: string): Route {
  return {
    method: "POST",
    path,
    async handler(req): Promise<ExtensionResponse> {
      const ops = adminOperations(req, req.locals)
      const back = `${req.authUrl}/admin/users/${encodeURIComponent(req.params.userId ?? "")}`
      if (wantsJson(req)) return { json: await act(req, ops) }
      try {
        await act(req, ops)
      } catch (error) {
        if (error instanceof ExtensionRequestError && error.status !== 403 && error.status !== 404) return { redirect: `${back}?error=${encodeURIComponent(error.code)}` }
        // Not re-authenticated recently: prove a factor, then back to the user's page to repeat the action.
        if (error instanceof StepUpRequired) return { redirect: `${req.authUrl}/reauthenticate?callbackUrl=${encodeURIComponent(back)}` }
        throw error
      }
      return { redirect: `${back}?done=${done}` }
    },
  }
}

const text = (value: unknown) => (typeof value === "string" ? value : undefined)

/**
 * A page route whose refusal of an impersonated session is a page of its own (403), so the
 * impersonation banner — with its one-click end — shows atop it as on every extension page.
 */
function consolePage(path: string, handler: Route["handler"]): Route {
  return {
    method: "GET",
    path,
    answers: "page",
    async handler(req) {
      try {
        return await handler(req)
      } catch (error) {
        if (!(error instanceof ExtensionRequestError) || error.code !== "impersonating") throw error
        return req.page(req.t("error.title"), html`<h1>${req.t("error.title")}</h1><p role="alert">${req.t("error.impersonating")}</p>`, 403)
      }
    },
  }
}

export const adminRoutes: readonly Route[] = [
  consolePage("", async (req) => {
    const input = listInput(req)
    const page = await adminOperations(req, req.locals).listUsers(input)
    return usersPage(req, page, { q: req.query.q ?? "", verified: req.query.verified ?? "", banned: req.query.banned ?? "" })
  }),
  consolePage("open", async (req) => {
    await requireAdmin(req, req.locals)
    const id = req.query.id ?? ""
    return { redirect: `${req.authUrl}/admin/users/${encodeURIComponent(id.trim())}` }
  }),
  consolePage("users/:userId", async (req) => {
    return userPage(req, await adminOperations(req, req.locals).user(req.params.userId!))
  }),
  consolePage("charts", async (req) => {
    return chartsPage(req, await adminOperations(req, req.locals).stats({ days: 14 }))
  }),
  { method: "GET", path: "api/users", handler: async (req) => ({ json: await adminOperations(req, req.locals).listUsers(listInput(req)) }) },
  { method: "GET", path: "api/users/:userId", handler: async (req) => ({ json: await adminOperations(req, req.locals).user(req.params.userId!) }) },
  {
    method: "GET",
    path: "api/stats",
    async handler(req) {
      const days = req.query.days
      if (days !== undefined && !/^\d{1,2}$/.test(days)) throw new ExtensionRequestError("invalid-days", "days must be a number from 1 to 90", 400)
      return { json: await adminOperations(req, req.locals).stats(days ? { days: Number(days) } : {}) }
    },
  },
  formAction(
    "users/:userId/ban",
    (req, ops) => {
      const { reason, duration, expires } = req.body
      const d = text(duration) ?? (typeof duration === "number" ? duration : undefined)
      return ops.ban(req.params.userId!, {
        reason: text(reason) ?? "",
        ...(d !== undefined && d !== "" && { duration: typeof d === "number" ? d : /^\d{1,10}$/.test(d) ? Number(d) : Number.NaN }),
        ...(text(expires) && { expires: text(expires)! }),
      })
    },
    "banned",
  ),
  {
    // Impersonate: for the console's form a redirect to the app (`impersonation.landing`) as the user.
    method: "POST",
    path: "users/:userId/impersonate",
    async handler(req): Promise<ExtensionResponse> {
      const ops = adminOperations(req, req.locals)
      // The cookies go on the answer (core set them), never into its body: they hold session tokens.
      if (wantsJson(req)) return { json: { until: (await ops.impersonate(req.params.userId!)).until } }
      const back = `${req.authUrl}/admin/users/${encodeURIComponent(req.params.userId ?? "")}`
      try {
        await ops.impersonate(req.params.userId!)
      } catch (error) {
        if (error instanceof StepUpRequired) return { redirect: `${req.authUrl}/reauthenticate?callbackUrl=${encodeURIComponent(back)}` }
        if (error instanceof ExtensionRequestError && error.status === 409) return { redirect: `${back}?error=${encodeURIComponent(error.code)}` }
        throw error
      }
      return { redirect: new URL(impersonationOf(req.locals).landing, req.url).href }
    },
  },
  {
    // Ends it with one click: `access: "anyone"`, so an impersonation past its end (no session
    // any more) still gives the admin their own session back.
    method: "POST",
    path: "impersonation/end",
    access: "anyone",
    async handler(req): Promise<ExtensionResponse> {
      const ended = await adminOperations(req, req.locals).endImpersonation()
      if (wantsJson(req)) return { json: { userId: ended.userId, restored: ended.restored } }
      if (!ended.restored) return { redirect: `${req.authUrl}/signin` }
      return { redirect: ended.userId ? `${req.authUrl}/admin/users/${encodeURIComponent(ended.userId)}?done=impersonationEnded` : `${req.authUrl}/admin` }
    },
  },
  formAction("users/:userId/send-password-reset", (req, ops) => ops.sendPasswordReset(req.params.userId!), "passwordResetSent"),
  formAction("users/:userId/unban", (req, ops) => ops.unban(req.params.userId!), "unbanned"),
  formAction("users/:userId/revoke", (req, ops) => ops.revokeSessions(req.params.userId!), "revoked"),
  formAction("users/:userId/reset-two-factor", (req, ops) => ops.resetTwoFactor(req.params.userId!, text(req.body.reason) ?? ""), "twoFactorReset"),
]
