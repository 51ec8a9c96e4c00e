import express from "express"
import type { Adapter } from "@portcullis/core/adapters"
import { ExpressAuth, getSession } from "@portcullis/express"
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

  return app
}
