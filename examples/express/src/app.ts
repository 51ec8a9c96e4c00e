import express from "express"
import type { Adapter } from "@portcullis/core/adapters"
import {
  confirmTwoFactor,
  disableTwoFactor,
  ExpressAuth,
  getCsrfToken,
  getSession,
  getTwoFactorStatus,
  InvalidRequest,
  listSessions,
  MissingCSRF,
  NotSignedIn,
  reauthenticateUrl,
  revokeOtherSessions,
  revokeSession,
  startTwoFactor,
  StepUpRequired,
} from "@portcullis/express"
import { authConfig, type DemoOptions } from "./auth.ts"
import { teamRoutes } from "./team.ts"
import { homePage, privatePage, sessionsPage, twoFactorPage } from "./views.ts"

/** Builds the demo app; `server.ts` runs it, tests can too. */
export function createApp(options: { secret: string; adapter?: Adapter } & DemoOptions) {
  const config = authConfig(options.secret, options.adapter, options)
  const app = express()
  app.set("trust proxy", "loopback")
  app.use("/auth", ExpressAuth(config))

  app.get("/", async (req, res, next) => {
    try {
      res.type("html").send(homePage(await getSession(req, config)))
    } catch (error) {
      next(error)
    }
  })

  app.get("/private", async (req, res, next) => {
    try {
      const session = await getSession(req, config)
      if (!session) return res.redirect(`/auth/signin?callbackUrl=${encodeURIComponent(req.originalUrl)}`)
      res.type("html").send(privatePage(session))
    } catch (error) {
      next(error)
    }
  })

  // "Your sessions": every browser signed in to this account, each revocable.
  app.get("/sessions", async (req, res, next) => {
    try {
      const sessions = await listSessions(req, config)
      res.type("html").send(sessionsPage(sessions, await getCsrfToken(req, res, config), req.query.revoked))
    } catch (error) {
      next(error)
    }
  })
  const form = express.urlencoded({ extended: false, limit: "4kb" })
  app.post("/sessions/revoke", form, async (req, res, next) => {
    try {
      const revoked = await revokeSession(req, config, String(req.body?.id ?? ""), res)
      res.redirect(303, `/sessions?revoked=${revoked ? "1" : "0"}`)
    } catch (error) {
      next(error)
    }
  })
  app.post("/sessions/revoke-others", form, async (req, res, next) => {
    try {
      const revoked = await revokeOtherSessions(req, config)
      res.redirect(303, `/sessions?revoked=${revoked}`)
    } catch (error) {
      next(error)
    }
  })

  // Two-factor settings. The forms carry the CSRF token, which core checks; the user is the
  // session's. Every change needs a recent step-up: a sign-in or the password at
  // /auth/reauthenticate, which comes back here (the error handler below sends it there).
  const showTwoFactor = async (req: express.Request, res: express.Response, extra: Omit<Parameters<typeof twoFactorPage>[0], "status" | "csrfToken"> = {}) => {
    const status = await getTwoFactorStatus(req, config)
    res.type("html").send(twoFactorPage({ status, csrfToken: await getCsrfToken(req, res, config), ...extra }))
  }
  app.get("/two-factor", (req, res, next) => void showTwoFactor(req, res).catch(next))
  app.post("/two-factor/start", form, async (req, res, next) => {
    try {
      await showTwoFactor(req, res, { enrollment: await startTwoFactor(req, config) })
    } catch (error) {
      next(error)
    }
  })
  app.post("/two-factor/confirm", form, async (req, res, next) => {
    try {
      const { backupCodes } = await confirmTwoFactor(req, config, { code: String(req.body?.code ?? "") })
      await showTwoFactor(req, res, { backupCodes })
    } catch (error) {
      if ((error as { type?: string }).type === "TwoFactorCodeInvalid") return void showTwoFactor(req, res, { notice: "That code was not right. Start again." }).catch(next)
      next(error)
    }
  })
  app.post("/two-factor/disable", form, async (req, res, next) => {
    try {
      await disableTwoFactor(req, config, { code: String(req.body?.code ?? "") })
      await showTwoFactor(req, res, { notice: "Two-factor authentication is off." })
    } catch (error) {
      if ((error as { type?: string }).type === "TwoFactorCodeInvalid") return void showTwoFactor(req, res, { notice: "That code was not right." }).catch(next)
      next(error)
    }
  })

  // The Team page: organizations, members and roles, invitations (the organizations extension).
  if (options.organizations) app.use(teamRoutes(config))

  // The page a form of `path` belongs to: where a sign-in or step-up comes back to.
  const pageOf = (path: string) => (path.startsWith("/two-factor") ? "/two-factor" : path.startsWith("/team") ? "/team" : "/sessions")
  // getSession throws InvalidRequest for a malformed Host or forwarded header: the client's
  // fault, so a 400. No error detail (stack, file paths) ever reaches the browser.
  app.use(((error, _req, res, _next) => {
    if (error instanceof InvalidRequest) return void res.status(400).type("text").send("Bad request")
    // A sensitive change without a recent step-up: confirm the password (or sign in again), then back to the page.
    if (error instanceof StepUpRequired) return void res.redirect(303, reauthenticateUrl(_req, config, pageOf(_req.path)))
    // Signed out (or revoked meanwhile): sign in again, then come back to the page.
    if (error instanceof NotSignedIn) return void res.redirect(303, `/auth/signin?callbackUrl=${encodeURIComponent(pageOf(_req.path))}`)
    if (error instanceof MissingCSRF) return void res.status(403).type("text").send("This form expired; reload the page and try again")
    console.error(error)
    res.status(500).type("text").send("Internal error")
  }) satisfies express.ErrorRequestHandler)

  return app
}
