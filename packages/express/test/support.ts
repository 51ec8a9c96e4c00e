import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import express from "express"
import type { AuthConfig } from "@portcullis/core"
import { ExpressAuth } from "@portcullis/express"
import type { Transport } from "../../core/test/helpers.js"

/** Starts a real Express server with the integration mounted at /auth; returns its origin. */
export async function expressServer(config: AuthConfig, setup?: (app: express.Express) => void): Promise<{ origin: string; close(): Promise<void>; transport: Transport }> {
  const app = express()
  setup?.(app)
  app.use("/auth", ExpressAuth(config))
  const server: Server = createServer(app)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  const origin = `http://127.0.0.1:${port}`
  return {
    origin,
    close: () => new Promise((resolve) => server.close(() => resolve())),
    transport: (request) => fetch(request, { redirect: "manual" }),
  }
}
