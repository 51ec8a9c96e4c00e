// Production entry: the Qwik City node build behind Node's http module.
// Without DEMO_OIDC_ISSUER it starts the local demo OpenID provider too.
import { createServer } from "node:http"

const port = Number(process.env.PORT ?? 3000)
const server = createServer()
await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve))
const origin = `http://127.0.0.1:${server.address().port}`
process.env.ORIGIN ??= origin

let op
if (!process.env.DEMO_OIDC_ISSUER) {
  const { startDemoOidcProvider } = await import("@portcullis/example-kit/oidc-server")
  op = await startDemoOidcProvider({ port: 0, clientId: "demo-app", clientSecret: "demo-app-secret", redirectUris: [`${origin}/auth/callback/demo-oidc`] })
  process.env.DEMO_OIDC_ISSUER = op.issuer
}

const { router, notFound, staticFile } = await import("./server/entry.node-server.js")
server.on("request", (req, res) => {
  const fail = (error) => {
    console.error(error)
    if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" })
    res.end("Internal error")
  }
  staticFile(req, res, (e) => (e ? fail(e) : router(req, res, (e) => (e ? fail(e) : notFound(req, res, fail)))))
})
console.log(`Portcullis Qwik City demo listening on ${origin}`)
console.log("Sign in with demo / portcullis")

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    server.closeAllConnections()
    server.close(() => (op ? op.close() : Promise.resolve()).finally(() => process.exit(0)))
  })
}
