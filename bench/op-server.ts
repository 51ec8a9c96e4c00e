/**
 * The OpenID Provider bench servers (issue 34), started by `bench/server.ts`:
 *
 *   op-portcullis      core + `oidcProvider` on `memoryOidcProviderStore()`, served by core's
 *                      Node path (`handleNodeRequest` on `http.createServer`: no Web Request
 *                      or Response, as a node:http or Express app serves it), rate limits off
 *   op-oidc-provider   oidc-provider v9 on its memory adapter, its own node handler
 *                      (`provider.callback()`) on `http.createServer`
 *
 * Equivalent configuration (each line holds for both):
 * - one confidential client `bench`, `client_secret_basic`, the same secret and redirect URI,
 *   grant types authorization_code + refresh_token;
 * - PKCE S256 required on the code (every bench code carries the same challenge);
 * - ES256 signs the ID token and the access token; access tokens are JWTs (RFC 9068) on
 *   both. Portcullis's are always JWTs (audience: the issuer); oidc-provider issues JWTs only
 *   for a resource server, so it runs the resource indicators feature with one resource whose
 *   `accessTokenFormat` is `jwt` (ES256), used by default. Opaque on both is not possible
 *   (Portcullis has no opaque access tokens), and JWT on both prices the same work: one ES256
 *   signature for the access token and one for the ID token per exchange;
 * - refresh tokens rotated on every use (oidc-provider `rotateRefreshToken: true`;
 *   Portcullis always rotates), issued because `offline_access` was granted;
 * - the same claims: `sub`, and `email`, `email_verified`, `name` for the scopes
 *   `openid email profile`;
 * - userinfo: oidc-provider refuses a token with an audience there (a resource server's JWT,
 *   by its design), so its userinfo row gets an opaque access token of the same grant,
 *   minted with its own API (a store read, no signature check); Portcullis's userinfo takes
 *   its JWT access token (a signature check, then the grant and revocation reads). That
 *   difference favours oidc-provider and is stated in docs/benchmarks.md.
 *
 * Both hand the runner single-use material minted through each library's own store/API,
 * outside the measured window: `GET /bench/codes?n=` (authorization codes, each under a fresh
 * grant of the bench user) and `GET /bench/userinfo-token` (an access token for userinfo).
 * oidc-provider's memory adapter is an LRU of 1,000 entries by default, which would evict a
 * pre-minted pool; the bench gives the same adapter class a store of 10,000,000 entries.
 */
import { createHash, randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { Auth } from "@portcullis/core"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { oidcProvider } from "@portcullis/oidc-provider"
import { memoryOidcProviderStore } from "@portcullis/oidc-provider/memory"
import { handleNodeRequest } from "@portcullis/core/integration"
import { BENCH_USER, SECRET } from "./shared.ts"
import { OP_CLIENT, OP_RESOURCE, OP_SCOPE, OP_VERIFIER, type OpTarget } from "./op-shared.ts"

const CODE_TTL_S = 600
const challenge = createHash("sha256").update(OP_VERIFIER).digest("base64url")

/** What each OP server adds to its protocol routes: the bench's minting endpoints. */
interface Minter {
  codes(n: number): Promise<string[]>
  /** An access token for userinfo, for the issuer at `host` (Portcullis's issuer follows the request's host). */
  userinfoToken(host: string): Promise<string>
}

/** The node:http server of an OP target. */
export async function opServer(target: OpTarget): Promise<Server> {
  const { handle, minter } = target === "op-portcullis" ? portcullis() : await oidcProviderV9()
  return createServer((req, res) => {
    const url = req.url ?? "/"
    if (!url.startsWith("/bench/")) return handle(req, res)
    benchRoute(minter, url, req.headers.host ?? "127.0.0.1").then(
      (body) => {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify(body))
      },
      (error: unknown) => {
        console.error("op bench server: minting failed:", error)
        res.writeHead(500).end()
      },
    )
  })
}

async function benchRoute(minter: Minter, url: string, host: string): Promise<unknown> {
  const { pathname, searchParams } = new URL(url, "http://x")
  if (pathname === "/bench/codes") return minter.codes(Math.min(50_000, Math.max(1, Number(searchParams.get("n") ?? 1))))
  if (pathname === "/bench/userinfo-token") return { token: await minter.userinfoToken(host) }
  throw new Error(`unknown bench route ${pathname}`)
}

function portcullis(): { handle: (req: IncomingMessage, res: ServerResponse) => void; minter: Minter } {
  const adapter = MemoryAdapter()
  void adapter.createUser!({ ...BENCH_USER, emailVerified: new Date() })
  const store = memoryOidcProviderStore()
  const config = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy: "jwt" as const },
    rateLimit: false as const,
    providers: [],
    extensions: [
      oidcProvider({
        store,
        clients: [{ clientId: OP_CLIENT.id, clientSecret: OP_CLIENT.secret, redirectUris: [OP_CLIENT.redirectUri], name: "Bench" }],
        signingAlgs: ["ES256", "RS256"],
        rateLimit: false,
      }),
    ],
  }
  // The Node path a node:http app uses (`handleNodeRequest`, core's `handleNode`): no Web
  // Request or Response, as oidc-provider's own Koa handler builds none.
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    handleNodeRequest(req, res, config).catch((error: unknown) => {
      console.error("op bench server: handler failed:", error)
      if (!res.headersSent) res.writeHead(500)
      res.end()
    })
  }
  async function mint(): Promise<string> {
    const grantId = randomBytes(16).toString("base64url")
    const now = new Date()
    const authTime = Math.floor(now.getTime() / 1000)
    await store.createGrant({ id: grantId, clientId: OP_CLIENT.id, userId: BENCH_USER.id, scope: OP_SCOPE, resources: [], authTime, createdAt: now, expiresAt: new Date(now.getTime() + 90 * 86400_000) })
    const code = randomBytes(32).toString("base64url")
    await store.saveCode({
      codeHash: createHash("sha256").update(code).digest("hex"),
      grantId,
      clientId: OP_CLIENT.id,
      userId: BENCH_USER.id,
      redirectUri: OP_CLIENT.redirectUri,
      scope: OP_SCOPE,
      resources: [],
      codeChallenge: challenge,
      authTime,
      expiresAt: new Date(now.getTime() + CODE_TTL_S * 1000),
    })
    return code
  }
  return {
    handle,
    minter: {
      async codes(n) {
        const out: string[] = []
        for (let i = 0; i < n; i++) out.push(await mint())
        return out
      },
      // Portcullis has one kind of access token: the one its token endpoint answers.
      async userinfoToken(host) {
        const code = await mint()
        const response = await Auth(new Request(`http://${host}/auth/oidc/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", authorization: basicAuth() },
          body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: OP_CLIENT.redirectUri, code_verifier: OP_VERIFIER }).toString(),
        }), config)
        const body = (await response.json()) as { access_token?: string }
        if (response.status !== 200 || !body.access_token) throw new Error(`token answered ${response.status}`)
        return body.access_token
      },
    },
  }
}

/** `Authorization: Basic` for the bench client (form-url-encoded parts, RFC 6749 §2.3.1). */
export function basicAuth(): string {
  const enc = (v: string) => encodeURIComponent(v).replace(/%20/g, "+")
  return `Basic ${Buffer.from(`${enc(OP_CLIENT.id)}:${enc(OP_CLIENT.secret)}`).toString("base64")}`
}

async function oidcProviderV9(): Promise<{ handle: (req: IncomingMessage, res: ServerResponse) => void; minter: Minter }> {
  const { default: Provider } = await import("oidc-provider")
  // Its own memory adapter class, on a store large enough for the pre-minted pools.
  // @ts-expect-error deep import of a plain JS module (oidc-provider ships no types here)
  const { default: OidcMemoryAdapter } = await import("oidc-provider/lib/adapters/memory_adapter.js")
  // @ts-expect-error likewise
  const { default: LRU } = await import("oidc-provider/lib/helpers/lru.js")
  const storage = new LRU({ maxSize: 10_000_000 })
  const { generateKeyPair, exportJWK } = await import("jose")
  const es = await generateKeyPair("ES256", { extractable: true })
  const rs = await generateKeyPair("RS256", { extractable: true })
  const keys = [
    { ...(await exportJWK(es.privateKey)), alg: "ES256", use: "sig", kid: "es" },
    { ...(await exportJWK(rs.privateKey)), alg: "RS256", use: "sig", kid: "rs" },
  ]
  const claims = { sub: BENCH_USER.id, email: BENCH_USER.email, email_verified: true, name: BENCH_USER.name }
  const provider = new Provider("http://127.0.0.1/oidc", {
    adapter: class extends OidcMemoryAdapter {
      constructor(model: string) {
        super(model, storage)
      }
    },
    clients: [{
      client_id: OP_CLIENT.id,
      client_secret: OP_CLIENT.secret,
      redirect_uris: [OP_CLIENT.redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
      id_token_signed_response_alg: "ES256",
    }],
    jwks: { keys },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    findAccount: (_ctx: unknown, id: string) => (id === BENCH_USER.id ? { accountId: id, claims: () => claims } : undefined),
    features: {
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => OP_RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({ scope: "api", audience: OP_RESOURCE, accessTokenTTL: 3600, accessTokenFormat: "jwt", jwt: { sign: { alg: "ES256" } } }),
      },
    },
    pkce: { required: () => true },
    rotateRefreshToken: true,
    ttl: { AccessToken: 3600, AuthorizationCode: CODE_TTL_S, IdToken: 3600, RefreshToken: 30 * 86400, Grant: 90 * 86400 },
  } as never)
  const client = await provider.Client.find(OP_CLIENT.id)
  if (!client) throw new Error("oidc-provider lost the bench client")
  async function grant(withResource: boolean): Promise<string> {
    const g = new provider.Grant({ accountId: BENCH_USER.id, clientId: OP_CLIENT.id })
    g.addOIDCScope(OP_SCOPE)
    if (withResource) g.addResourceScope(OP_RESOURCE, "api")
    return g.save()
  }
  async function mint(): Promise<string> {
    const grantId = await grant(true)
    const code = new provider.AuthorizationCode({
      accountId: BENCH_USER.id,
      client,
      grantId,
      scope: OP_SCOPE,
      redirectUri: OP_CLIENT.redirectUri,
      codeChallenge: challenge,
      codeChallengeMethod: "S256",
      resource: OP_RESOURCE,
      authTime: Math.floor(Date.now() / 1000),
    } as never)
    return code.save()
  }
  return {
    handle: provider.callback(),
    minter: {
      async codes(n) {
        const out: string[] = []
        for (let i = 0; i < n; i++) out.push(await mint())
        return out
      },
      async userinfoToken() {
        const grantId = await grant(false)
        const token = new provider.AccessToken({ accountId: BENCH_USER.id, client, grantId, scope: "openid email profile", gty: "authorization_code" } as never)
        return token.save()
      },
    },
  }
}
