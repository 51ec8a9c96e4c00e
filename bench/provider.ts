/**
 * A local OAuth 2.0 provider for the OAuth callback rows, run inside the bench runner:
 * `POST /token` answers a bearer token for any code, `GET /userinfo` the bench user. It
 * checks nothing, so that what a row measures is the library's callback handling (state
 * and PKCE cookies, the two back-channel requests, the profile, the session cookie).
 */
import { createServer, type Server } from "node:http"
import { BENCH_USER } from "./shared.ts"

export interface LocalProvider {
  url: string
  /** Back-channel requests answered so far, by path. */
  served: Record<string, number>
  close(): Promise<void>
}

export function startLocalProvider(): Promise<LocalProvider> {
  const served: Record<string, number> = {}
  let tokens = 0
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!
    served[path] = (served[path] ?? 0) + 1
    // Drain the (form) body, then answer.
    req.resume()
    req.on("end", () => {
      if (req.method === "POST" && path === "/token") {
        res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" })
        res.end(JSON.stringify({ access_token: `bench-access-${++tokens}`, token_type: "bearer", expires_in: 3600 }))
      } else if (req.method === "GET" && path === "/userinfo") {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({ id: "oauth-bench", name: BENCH_USER.name, email: BENCH_USER.email }))
      } else {
        res.writeHead(404).end()
      }
    })
  })
  server.keepAliveTimeout = 30_000
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address ? address.port : 0
      resolve({
        url: `http://127.0.0.1:${port}`,
        served,
        close: () => new Promise<void>((done) => {
          server.closeAllConnections()
          server.close(() => done())
        }),
      })
    })
  })
}
