/**
 * One bench server per process: `node bench/server.ts <target> [port]`.
 *
 *   baseline            answers `{}` to everything (the adapter alone: the ceiling)
 *   portcullis          Portcullis `Auth(request, config)`, JWT sessions, default updateAge
 *   portcullis-reissue  the same with `session.updateAge: 0` (every check re-issues)
 *   authjs              @auth/core `Auth(request, config)` with the equivalent config
 *
 * Listens on 127.0.0.1 (port 0 = any free port) and prints `LISTENING <port>` once ready.
 * Exits cleanly on SIGTERM/SIGINT, so `--cpu-prof` gets to write its profile.
 */
import { Auth as authjsAuth } from "@auth/core"
import { Auth as portcullisAuth } from "@portcullis/core"
import { serve, type WebHandler } from "./adapter.ts"
import { authjsConfig, portcullisConfig } from "./configs.ts"
import { TARGETS, type Target } from "./shared.ts"

function handlerFor(target: Target): WebHandler {
  switch (target) {
    case "baseline": {
      const headers = { "content-type": "application/json" }
      return () => new Response("{}", { headers })
    }
    case "portcullis": {
      const config = portcullisConfig({ reissue: false })
      return (request) => portcullisAuth(request, config)
    }
    case "portcullis-reissue": {
      const config = portcullisConfig({ reissue: true })
      return (request) => portcullisAuth(request, config)
    }
    case "authjs": {
      const config = authjsConfig()
      return (request) => authjsAuth(request, config)
    }
  }
}

const [target, portArg = "0"] = process.argv.slice(2)
if (!TARGETS.includes(target as Target)) {
  console.error(`usage: node bench/server.ts <${TARGETS.join("|")}> [port]`)
  process.exit(2)
}

const server = serve(handlerFor(target as Target))
server.keepAliveTimeout = 30_000
server.on("error", (error) => {
  console.error(`bench server (${target}) failed:`, error)
  process.exit(1)
})
server.listen(Number(portArg), "127.0.0.1", () => {
  const address = server.address()
  const port = typeof address === "object" && address ? address.port : Number(portArg)
  process.stdout.write(`LISTENING ${port}\n`)
})

function shutdown() {
  server.closeAllConnections()
  server.close(() => process.exit(0))
  setTimeout(() => process.exit(0), 1000).unref()
}
process.on("SIGTERM", shutdown)
process.on("SIGINT", shutdown)
