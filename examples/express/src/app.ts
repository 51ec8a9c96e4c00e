import express from "express"
import type { Adapter } from "@portcullis/core/adapters"
import { ExpressAuth, getCsrfToken, getSession, InvalidRequest, listSessions, MissingCSRF, NotSignedIn, revokeOtherSessions, revokeSession } from "@portcullis/express"
import { authConfig, type DemoPeers } from "./auth.ts"
import { homePage, privatePage, sessionsPage } from "./views.ts"

/** Builds the demo app; `server.ts` runs it, tests can too. */
export function createApp(options: { secret: string; adapter?: Adapter } & DemoPeers) {
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

  // getSession throws InvalidRequest for a malformed Host or forwarded header: the client's
  // fault, so a 400. No error detail (stack, file paths) ever reaches the browser.
  app.use(((error, _req, res, _next) => {
    if (error instanceof InvalidRequest) return void res.status(400).type("text").send("Bad request")
    // Signed out (or revoked meanwhile): sign in again, then come back to the list.
    if (error instanceof NotSignedIn) return void res.redirect(303, "/auth/signin?callbackUrl=%2Fsessions")
    if (error instanceof MissingCSRF) return void res.status(403).type("text").send("This form expired; reload the page and try again")
    console.error(error)
    res.status(500).type("text").send("Internal error")
  }) satisfies express.ErrorRequestHandler)

  return app
}
