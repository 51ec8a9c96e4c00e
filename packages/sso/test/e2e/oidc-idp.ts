/**
 * An organization's OpenID Connect IdP for the end-to-end tests: `oidc-provider` on loopback
 * with its development login and consent pages, people of our own (with a `groups` claim),
 * and its one client registered once the connection exists (its redirect URI names the
 * connection): `listen()` gives the issuer, `register()` starts the provider.
 * @module
 */
import { randomBytes } from "node:crypto"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { exportJWK, generateKeyPair } from "jose"
import Provider from "oidc-provider"

/** A person at the IdP: the login typed at its dev login page is `login` (any password). */
export interface OidcPerson {
  login: string
  email: string
  name: string
  groups: string[]
}

export interface OidcIdp {
  issuer: string
  /** Registers the app's client and starts answering. */
  register(client: { clientId: string; clientSecret: string; redirectUri: string }): Promise<void>
  close(): Promise<void>
}

export async function listenOidcIdp(people: OidcPerson[]): Promise<OidcIdp> {
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    issuer,
    async register(client) {
      const { privateKey } = await generateKeyPair("RS256", { extractable: true })
      const key = { ...(await exportJWK(privateKey)), kid: `e2e-${randomBytes(4).toString("hex")}`, alg: "RS256", use: "sig" }
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: client.clientId,
            client_secret: client.clientSecret,
            redirect_uris: [client.redirectUri],
            grant_types: ["authorization_code"],
            response_types: ["code"],
            token_endpoint_auth_method: "client_secret_basic",
          },
        ],
        jwks: { keys: [key] },
        cookies: { keys: [randomBytes(32).toString("hex")] },
        claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "groups"] },
        // The granted claims in the ID token too: the connection reads the ID token's claims.
        conformIdTokenClaims: false,
        features: { devInteractions: { enabled: true } },
        async findAccount(_ctx: unknown, id: string) {
          const person = people.find((p) => p.login === id)
          if (!person) return undefined
          return { accountId: person.login, claims: async () => ({ sub: person.login, email: person.email, email_verified: true, name: person.name, groups: person.groups }) }
        },
      })
      server.on("request", provider.callback())
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
