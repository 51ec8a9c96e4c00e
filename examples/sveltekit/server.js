// Production entry: the adapter-node build behind a plain Node server on loopback, beside
// the local demo OpenID provider (unless DEMO_OIDC_ISSUER names one).
import { serveExample } from "@portcullis/example-kit/serve"

// adapter-node 6 (SvelteKit 3) no longer reads ORIGIN: it takes the scheme and host from the
// headers its PROTOCOL_HEADER / HOST_HEADER name, else assumes https and the request's Host.
// This server states its own origin in two headers of its own, overwriting whatever a client
// sent under those names, so the origin is fixed (as ORIGIN did) and can't be forged — the
// local OpenID provider knows the app by exactly that origin.
const PROTOCOL_HEADER = "x-portcullis-example-proto"
const HOST_HEADER = "x-portcullis-example-host"

await serveExample({
  name: "SvelteKit",
  callbackPath: "/auth/callback/demo-oidc",
  load: async (origin) => {
    const { protocol, host } = new URL(process.env.ORIGIN ?? origin)
    process.env.PROTOCOL_HEADER = PROTOCOL_HEADER
    process.env.HOST_HEADER = HOST_HEADER
    const { handler } = await import("./build/handler.js")
    return (req, res) => {
      req.headers[PROTOCOL_HEADER] = protocol.slice(0, -1)
      req.headers[HOST_HEADER] = host
      handler(req, res)
    }
  },
})
