/**
 * The production entry shared by the framework examples: listen on loopback, start the
 * local OpenID provider unless one is configured, then hand requests to the framework's
 * built handler. Development only.
 *
 * @example
 * ```js
 * // examples/sveltekit/server.js
 * import { serveExample } from "@portcullis/example-kit/serve"
 * await serveExample({ name: "SvelteKit", callbackPath: "/auth/callback/demo-oidc", load: async () => (await import("./build/handler.js")).handler })
 * ```
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { startDemoOidcProvider, type DemoOidcProvider } from "./oidc-server.js"

export interface ServeExampleOptions {
  /** Shown in the "listening on" line. */
  name: string
  /** The app's OIDC callback path, registered with the local OpenID provider. */
  callbackPath: string
  /**
   * Loads the framework's handler. Called once the environment is complete (`ORIGIN`,
   * `DEMO_OIDC_ISSUER`), because auth configs read it when their module loads.
   */
  load(origin: string): Promise<(req: IncomingMessage, res: ServerResponse) => void>
}

/** Starts the example on `PORT` (default 3000; 0 picks a free port) and prints its URL. */
export async function serveExample(options: ServeExampleOptions): Promise<void> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(Number(process.env.PORT ?? 3000), "127.0.0.1", resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  process.env.ORIGIN ??= origin

  let op: DemoOidcProvider | undefined
  if (!process.env.DEMO_OIDC_ISSUER) {
    op = await startDemoOidcProvider({ port: 0, clientId: "demo-app", clientSecret: "demo-app-secret", redirectUris: [`${origin}${options.callbackPath}`] })
    process.env.DEMO_OIDC_ISSUER = op.issuer
  }

  server.on("request", await options.load(origin))
  console.log(`Portcullis ${options.name} demo listening on ${origin}`)
  console.log("Sign in with demo / portcullis")

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      server.closeAllConnections()
      server.close(() => void (op ? op.close() : Promise.resolve()).finally(() => process.exit(0)))
    })
  }
}
