// Production entry: the Qwik City node build behind Node's http module, beside the local
// demo OpenID provider (unless DEMO_OIDC_ISSUER names one).
import { serveExample } from "@portcullis/example-kit/serve"

await serveExample({
  name: "Qwik City",
  callbackPath: "/auth/callback/demo-oidc",
  async load() {
    const { router, notFound, staticFile } = await import("./server/entry.node-server.js")
    return (req, res) => {
      const fail = (error) => {
        console.error(error)
        if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" })
        res.end("Internal error")
      }
      staticFile(req, res, (e) => (e ? fail(e) : router(req, res, (e) => (e ? fail(e) : notFound(req, res, fail)))))
    }
  },
})
