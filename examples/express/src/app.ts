import express from "express"
import type { Adapter } from "@portcullis/core/adapters"
import { ExpressAuth, getSession, InvalidRequest } from "@portcullis/express"
import { authConfig, type DemoPeers } from "./auth.ts"
import { homePage, privatePage } from "./views.ts"

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

  // getSession throws InvalidRequest for a malformed Host or forwarded header: the client's
  // fault, so a 400. No error detail (stack, file paths) ever reaches the browser.
  app.use(((error, _req, res, _next) => {
    if (error instanceof InvalidRequest) return void res.status(400).type("text").send("Bad request")
    console.error(error)
    res.status(500).type("text").send("Internal error")
  }) satisfies express.ErrorRequestHandler)

  return app
}
