/**
 * A Battle.net-shaped OpenID provider on a loopback port. Battle.net's issuers are region
 * dependent (`https://eu.battle.net/oauth`, `https://us.battle.net/oauth`, …), each with its
 * own discovery document under `<issuer>/.well-known/openid-configuration`; this server
 * hosts two regions side by side as `<origin>/eu/oauth` and `<origin>/us/oauth`.
 *
 * Per region: `/authorize` (code + state back, no `iss` parameter, as Battle.net),
 * `/token` (HTTP Basic client auth, PKCE S256 checked; answers with Battle.net's shape:
 * `access_token`, `token_type: "bearer"`, `expires_in`, `scope`, `sub`, `id_token`),
 * `/userinfo` (`{ sub, id, battletag }`) and `/jwks/certs`. The ID token carries `sub` (the
 * account id, a string) and `battle_tag`.
 */
import { randomBytes } from "node:crypto"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose"
import { clientCredentials, json, readBody, s256, type Logged } from "./http.js"

export type Region = "eu" | "us"

export interface BattleNetServer {
  origin: string
  issuer(region: Region): string
  clientId: string
  clientSecret: string
  account: { id: number; battletag: string }
  log: (Logged & { region: string })[]
  /** When set, ID tokens minted in a region name this issuer instead of their own. */
  mintIssuer?: string
  close(): Promise<void>
}

export async function startBattleNetServer(): Promise<BattleNetServer> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true })
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: "bnet-1", alg: "RS256", use: "sig" }
  const grants = new Map<string, { region: Region; clientId: string; redirectUri: string; challenge?: string; nonce?: string; scope: string }>()
  const tokens = new Set<string>()
  let origin = ""
  const state: BattleNetServer = {
    origin: "",
    issuer: (region) => `${origin}/${region}/oauth`,
    clientId: "bnet-client-id",
    clientSecret: "bnet-client-secret",
    account: { id: 123456789, battletag: "Ada#1815" },
    log: [],
    close: () => new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url!, "http://localhost")
    const body = new URLSearchParams(await readBody(req))
    const match = /^\/(eu|us)\/oauth(\/.*)$/.exec(url.pathname)
    state.log.push({ method: req.method!, path: url.pathname, query: url.searchParams, headers: req.headers, body, region: match?.[1] ?? "" })
    if (!match) return json(res, 404, { error: "not_found" })
    const region = match[1] as Region
    const issuer = state.issuer(region)
    switch (match[2]) {
      case "/.well-known/openid-configuration":
        return json(res, 200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          userinfo_endpoint: `${issuer}/userinfo`,
          jwks_uri: `${issuer}/jwks/certs`,
          response_types_supported: ["code", "id_token"],
          subject_types_supported: ["public"],
          id_token_signing_alg_values_supported: ["RS256"],
          scopes_supported: ["openid", "wow.profile", "sc2.profile", "d3.profile"],
          claims_supported: ["sub", "iss", "aud", "exp", "iat", "auth_time", "battle_tag"],
          token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
        })
      case "/jwks/certs":
        return json(res, 200, { keys: [jwk] })
      case "/authorize": {
        const q = url.searchParams
        if (q.get("client_id") !== state.clientId || q.get("response_type") !== "code") return json(res, 400, { error: "invalid_request" })
        const code = randomBytes(12).toString("hex")
        grants.set(code, {
          region,
          clientId: q.get("client_id")!,
          redirectUri: q.get("redirect_uri")!,
          challenge: q.get("code_challenge") ?? undefined,
          nonce: q.get("nonce") ?? undefined,
          scope: q.get("scope") ?? "",
        })
        const back = new URL(q.get("redirect_uri")!)
        back.searchParams.set("code", code)
        if (q.has("state")) back.searchParams.set("state", q.get("state")!)
        res.writeHead(302, { location: back.href }).end()
        return
      }
      case "/token": {
        if (req.method !== "POST") return json(res, 405, { error: "invalid_request" })
        const [id, secret] = clientCredentials(req, body)
        if (id !== state.clientId || secret !== state.clientSecret) return json(res, 401, { error: "unauthorized", error_description: "An Authentication object was not found in the SecurityContext" })
        const code = body.get("code") ?? ""
        const grant = grants.get(code)
        grants.delete(code)
        if (!grant || grant.region !== region || grant.redirectUri !== body.get("redirect_uri")) return json(res, 400, { error: "invalid_grant" })
        if (grant.challenge && (await s256(body.get("code_verifier") ?? "")) !== grant.challenge) return json(res, 400, { error: "invalid_grant" })
        const now = Math.floor(Date.now() / 1000)
        const idToken = await new SignJWT({ battle_tag: state.account.battletag, ...(grant.nonce && { nonce: grant.nonce }), auth_time: now })
          .setProtectedHeader({ alg: "RS256", kid: jwk.kid!, typ: "JWT" })
          .setIssuer(state.mintIssuer ?? issuer)
          .setSubject(String(state.account.id))
          .setAudience(state.clientId)
          .setIssuedAt(now)
          .setExpirationTime(now + 86399)
          .setJti(randomBytes(8).toString("hex"))
          .sign(privateKey as CryptoKey)
        const accessToken = `EU${randomBytes(16).toString("hex")}`
        tokens.add(accessToken)
        return json(res, 200, { access_token: accessToken, token_type: "bearer", expires_in: 86399, scope: grant.scope, sub: String(state.account.id), id_token: idToken })
      }
      case "/userinfo": {
        const auth = req.headers.authorization ?? ""
        if (!auth.startsWith("Bearer ") || !tokens.has(auth.slice(7))) return json(res, 401, { error: "invalid_token" })
        return json(res, 200, { sub: String(state.account.id), id: state.account.id, battletag: state.account.battletag })
      }
      default:
        return json(res, 404, { error: "not_found" })
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  state.origin = origin
  return state
}
