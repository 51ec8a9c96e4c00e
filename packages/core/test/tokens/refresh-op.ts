/**
 * A real OpenID provider (`oidc-provider`) that issues refresh tokens, rotates them (a used
 * one is refused and its whole grant revoked — reuse detection), and records every token
 * request it gets, so tests can count refreshes at the provider itself. Its token endpoint
 * can be made to fail: drop the connection, answer 503, or answer too late.
 */
import { randomBytes } from "node:crypto"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { exportJWK, generateKeyPair } from "jose"
import Provider from "oidc-provider"

export const clientId = "tokens-test"
export const clientSecret = "tokens-test-secret"
export const accountId = "demo"

/** One request to the token endpoint, as the provider saw it. */
export interface TokenRequest {
  grantType: string | undefined
  refreshToken: string | undefined
  /** The status the provider answered (or 0 when the fault dropped it). */
  status: number
}

/**
 * `drop`: the connection is cut; `unavailable`: 503; `slow`: the answer comes after
 * `slowMs`; `hang`: the request never reaches the provider and is never answered (a
 * network that swallowed it) — it is recorded with status 0 and `grantType: "hung"`.
 */
export type Fault = "none" | "drop" | "unavailable" | "slow" | "hang"

export interface RefreshOp {
  issuer: string
  /** Every token request, oldest first. */
  requests: TokenRequest[]
  refreshRequests(): TokenRequest[]
  /** Whether refresh tokens rotate (a new one with every refresh). Default `true`. */
  rotate: boolean
  /** Seconds an access token lives. Default 3600. */
  accessTtl: number
  /** What the token endpoint does. */
  fault: Fault
  /** Milliseconds a `slow` token endpoint waits before answering. */
  slowMs: number
  /** A refresh token (with its grant) for the demo account, as a sign-in would have left. */
  mintRefreshToken(): Promise<string>
  /** Revokes the grant a refresh token belongs to (the user withdrew consent). */
  revokeGrantOf(refreshToken: string): Promise<void>
  close(): Promise<void>
}

export async function startRefreshOp(options: { redirectUris?: string[] } = {}): Promise<RefreshOp> {
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const { privateKey } = await generateKeyPair("RS256", { extractable: true })
  const signingKey = { ...(await exportJWK(privateKey)), kid: `t-${randomBytes(4).toString("hex")}`, alg: "RS256", use: "sig" }

  const state = {
    rotate: true,
    accessTtl: 3600,
    fault: "none" as Fault,
    slowMs: 1_000,
  }
  const requests: TokenRequest[] = []

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris ?? ["http://localhost:3000/auth/callback/op"],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString("hex")] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
    // Every sign-in gets a refresh token, whether or not it asked for offline_access.
    issueRefreshToken: async () => true,
    rotateRefreshToken: () => state.rotate,
    ttl: { AccessToken: () => state.accessTtl, RefreshToken: 24 * 3600, Grant: 24 * 3600, Session: 24 * 3600, IdToken: 3600, Interaction: 3600 },
    async findAccount(_ctx: unknown, id: string) {
      if (id !== accountId) return undefined
      return { accountId, claims: async () => ({ sub: accountId, email: "demo@portcullis.dev", email_verified: true, name: "Demo User" }) }
    },
  })
  // Counts and faults sit in front of the provider's own token endpoint.
  provider.use(async (ctx, next) => {
    if (ctx.method !== "POST" || ctx.path !== "/token") return next()
    if (state.fault === "drop") {
      requests.push({ grantType: undefined, refreshToken: undefined, status: 0 })
      ctx.req.socket.destroy()
      return
    }
    if (state.fault === "unavailable") {
      requests.push({ grantType: undefined, refreshToken: undefined, status: 503 })
      ctx.status = 503
      ctx.body = "down for maintenance"
      return
    }
    if (state.fault === "hang") {
      requests.push({ grantType: "hung", refreshToken: undefined, status: 0 })
      await new Promise<void>((resolve) => ctx.req.socket.once("close", () => resolve()))
      return
    }
    if (state.fault === "slow") await new Promise((resolve) => setTimeout(resolve, state.slowMs))
    await next()
    const params = (ctx as unknown as { oidc?: { params?: Record<string, unknown> } }).oidc?.params
    requests.push({
      grantType: typeof params?.grant_type === "string" ? params.grant_type : undefined,
      refreshToken: typeof params?.refresh_token === "string" ? params.refresh_token : undefined,
      status: ctx.status,
    })
  })
  server.on("request", provider.callback())

  return {
    issuer,
    requests,
    refreshRequests: () => requests.filter((r) => r.grantType === "refresh_token"),
    get rotate() { return state.rotate },
    set rotate(value) { state.rotate = value },
    get accessTtl() { return state.accessTtl },
    set accessTtl(value) { state.accessTtl = value },
    get fault() { return state.fault },
    set fault(value) { state.fault = value },
    get slowMs() { return state.slowMs },
    set slowMs(value) { state.slowMs = value },
    async mintRefreshToken() {
      const grant = new provider.Grant({ accountId, clientId })
      grant.addOIDCScope("openid email profile offline_access")
      const grantId = await grant.save()
      const client = await provider.Client.find(clientId)
      const token = new provider.RefreshToken({ accountId, client: client!, grantId, scope: "openid email profile offline_access", gty: "authorization_code", expiresWithSession: false })
      return token.save()
    },
    async revokeGrantOf(refreshToken) {
      const found = await provider.RefreshToken.find(refreshToken)
      if (!found) return
      const grant = await provider.Grant.find(found.grantId!)
      await grant?.destroy()
      await found.destroy()
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
