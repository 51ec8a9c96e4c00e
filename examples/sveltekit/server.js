// Production entry: the adapter-node build behind a plain Node server on loopback, beside
// the local demo OpenID provider (unless DEMO_OIDC_ISSUER names one).
import { serveExample } from "@portcullis/example-kit/serve"

await serveExample({
  name: "SvelteKit",
  callbackPath: "/auth/callback/demo-oidc",
  load: async () => (await import("./build/handler.js")).handler,
})
