// Production entry: the adapter-node build behind a plain Node server on loopback.
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

// Imported after the environment is complete: the auth config reads it at load.
const { handler } = await import("./build/handler.js")
server.on("request", handler)
console.log(`Portcullis SvelteKit demo listening on ${origin}`)
console.log("Sign in with demo / portcullis")

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    server.closeAllConnections()
    server.close(() => (op ? op.close() : Promise.resolve()).finally(() => process.exit(0)))
  })
}
