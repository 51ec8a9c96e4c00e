/**
 * A local OpenID provider for the demo: `oidc-provider` on a loopback port with one demo
 * account and its development login and consent screens, so "Sign in with Demo OIDC"
 * works in a browser with no outside service.
 *
 * Development only: the login screen signs in the demo account with login `demo` and any
 * password, and the provider serves plain http on loopback (the Portcullis provider must
 * set `allowInsecureLoopback: true`).
 *
 * @example
 * ```ts
 * import { startDemoOidcProvider } from "@portcullis/example-kit/oidc-server"
 *
 * const op = await startDemoOidcProvider({
 *   port: 4001,
 *   clientId: "demo-app",
 *   clientSecret: "demo-app-secret",
 *   redirectUris: ["http://localhost:3000/auth/callback/demo-oidc"],
 * })
 * const provider = {
 *   id: "demo-oidc", name: "Demo OIDC", type: "oidc", issuer: op.issuer,
 *   clientId: "demo-app", clientSecret: "demo-app-secret", allowInsecureLoopback: true,
 * }
 * // … and on shutdown: await op.close()
 * ```
 * @module
 */
import { randomBytes } from "node:crypto"
import { createServer, type Server } from "node:http"
import { createServer as createTlsServer } from "node:https"
import type { AddressInfo } from "node:net"
import { exportJWK, generateKeyPair } from "jose"
import Provider from "oidc-provider"

/** The one account the demo provider knows. */
export const demoOidcAccount = {
  /** Also the login to type on the provider's dev login screen (any password). */
  sub: "demo",
  email: "demo@portcullis.dev",
  email_verified: true,
  name: "Demo User",
} as const

export interface DemoOidcOptions {
  /** Loopback port to listen on; 0 picks a free one. */
  port: number
  clientId: string
  clientSecret: string
  /** The app's callback URLs, `[origin]/<basePath>/callback/<provider id>`. */
  redirectUris: string[]
  /**
   * PEM key and certificate to serve https instead (the issuer is then
   * `https://127.0.0.1:<port>`), for an app running with NODE_ENV=production, which accepts
   * only https providers; the app's process must trust the certificate (NODE_EXTRA_CA_CERTS).
   */
  tls?: { key: string; cert: string }
}

export interface DemoOidcProvider {
  /** The issuer to configure: `http://127.0.0.1:<port>` (`https://` with `tls`). */
  issuer: string
  close(): Promise<void>
}

/** Starts the demo provider and resolves once it accepts connections. */
export async function startDemoOidcProvider(options: DemoOidcOptions): Promise<DemoOidcProvider> {
  const server: Server = options.tls ? createTlsServer(options.tls) : createServer()
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port, "127.0.0.1", () => resolve())
  })
  const { port } = server.address() as AddressInfo
  const issuer = `${options.tls ? "https" : "http"}://127.0.0.1:${port}`

  // A fresh signing key per start: tokens of an earlier run never verify.
  const { privateKey } = await generateKeyPair("RS256", { extractable: true })
  const signingKey = { ...(await exportJWK(privateKey)), kid: `demo-${randomBytes(4).toString("hex")}`, alg: "RS256", use: "sig" }

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString("hex")] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    // Put the granted claims in the id_token too: Portcullis reads OIDC profiles from it.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
    // The dev login screen takes any login; only the demo account's exists.
    async findAccount(_ctx: unknown, id: string) {
      if (id !== demoOidcAccount.sub) return undefined
      return {
        accountId: demoOidcAccount.sub,
        async claims() {
          return { ...demoOidcAccount }
        },
      }
    },
  })
  server.on("request", provider.callback())

  return {
    issuer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
