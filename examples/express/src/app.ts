import express from "express"
import type { Adapter } from "@portcullis/core/adapters"
import { ExpressAuth, getSession, InvalidRequest, MissingCSRF, NotSignedIn, reauthenticateUrl, StepUpRequired } from "@portcullis/express"
import { authConfig, type DemoOptions } from "./auth.ts"
import { teamRoutes } from "./team.ts"
import { homePage, privatePage } from "./views.ts"

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

  // Sessions and two-factor live in the account center now (@portcullis/account, served at
  // /auth/account by the handler above): the old addresses lead there.
  if (options.adapter) {
    app.get("/sessions", (_req, res) => res.redirect(301, "/auth/account#sessions"))
    app.get("/two-factor", (_req, res) => res.redirect(301, "/auth/account#two-factor"))
  }

  // The Team page: organizations, members and roles, invitations (the organizations extension).
  if (options.organizations) app.use(teamRoutes(config))

  // The page a form of `path` belongs to: where a sign-in or step-up comes back to.
  const pageOf = (path: string) => (path.startsWith("/team") ? "/team" : "/")
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
