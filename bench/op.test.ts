/**
 * Keeps the OpenID Provider bench rows from rotting (issue 34): both OP bench servers
 * (Portcullis's `oidcProvider` and oidc-provider 9, built packages, real node:http, random
 * ports) start, mint codes through their own stores, and answer one code exchange, one
 * rotated refresh and one userinfo call correctly. No timing here.
 */
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startServer, type RunningServer } from "./harness.ts"
import { basicAuth } from "./op-server.ts"
import { OP_CLIENT, OP_PATHS, OP_TARGETS, OP_VERIFIER } from "./op-shared.ts"
import { BENCH_USER } from "./shared.ts"

const builtProvider = fileURLToPath(new URL("../packages/oidc-provider/dist/memory.js", import.meta.url))

/** The payload of a JWT (not verified: the protocol's own tests do that). */
function payload(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as Record<string, unknown>
}
function header(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split(".")[0]!, "base64url").toString()) as Record<string, unknown>
}

for (const target of OP_TARGETS) {
  describe(`OP bench server (${target})`, () => {
    let server: RunningServer

    beforeAll(async () => {
      if (!existsSync(builtProvider)) throw new Error("packages/oidc-provider/dist is missing: the bench servers run the built packages; run `npm run build` first")
      server = await startServer(target, { timeoutMs: 60_000 })
    })

    afterAll(async () => {
      await server?.stop()
    })

    const token = (form: Record<string, string>) =>
      fetch(server.url + OP_PATHS[target].token, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: basicAuth() },
        body: new URLSearchParams(form),
      })

    it("redeems a minted code once (ES256 JWT access and ID tokens), rotates its refresh token, and refuses the code again", async () => {
      const codes = (await (await fetch(`${server.url}/bench/codes?n=3`)).json()) as string[]
      expect(new Set(codes).size).toBe(3)
      const exchange = { grant_type: "authorization_code", code: codes[0]!, redirect_uri: OP_CLIENT.redirectUri, code_verifier: OP_VERIFIER }
      const first = await token(exchange)
      expect(first.status).toBe(200)
      const body = (await first.json()) as { access_token: string; id_token: string; refresh_token: string }
      expect(header(body.access_token)).toMatchObject({ alg: "ES256", typ: "at+jwt" })
      expect(header(body.id_token)).toMatchObject({ alg: "ES256" })
      expect(payload(body.id_token)).toMatchObject({ sub: BENCH_USER.id, aud: OP_CLIENT.id })
      expect(typeof body.refresh_token).toBe("string")

      const refreshed = await token({ grant_type: "refresh_token", refresh_token: body.refresh_token })
      expect(refreshed.status).toBe(200)
      const next = (await refreshed.json()) as { refresh_token: string; access_token: string }
      expect(next.refresh_token).not.toBe(body.refresh_token)
      expect(typeof next.access_token).toBe("string")
      // Rotation on both: the rotated token is spent.
      expect((await token({ grant_type: "refresh_token", refresh_token: body.refresh_token })).status).toBe(400)

      // Single use (a replay also revokes the grant, so it comes last): the bench's guard
      // relies on a code never answering twice.
      expect((await token(exchange)).status).toBe(400)
      // PKCE is enforced: the wrong verifier is refused.
      expect((await token({ ...exchange, code: codes[1]!, code_verifier: `${OP_VERIFIER}x` })).status).toBe(400)
    })

    it("answers userinfo for the bench token with the bench user's claims", async () => {
      const { token: bearer } = (await (await fetch(`${server.url}/bench/userinfo-token`)).json()) as { token: string }
      const response = await fetch(server.url + OP_PATHS[target].userinfo, { headers: { authorization: `Bearer ${bearer}` } })
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ sub: BENCH_USER.id, email: BENCH_USER.email, email_verified: true, name: BENCH_USER.name })
      const refused = await fetch(server.url + OP_PATHS[target].userinfo, { headers: { authorization: "Bearer not-a-token" } })
      expect(refused.status).toBe(401)
    })
  })
}
