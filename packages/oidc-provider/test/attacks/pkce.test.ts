import { describe, expect, it } from "vitest"
import { codeFor, pkce, testbed, authorizeAs } from "../support.js"
import { exchange, refused } from "./kit.js"

const nativeForm = (code: string, extra: Record<string, string> = {}) => ({ grant_type: "authorization_code", code, client_id: "native", redirect_uri: "http://127.0.0.1/callback", ...extra })

describe("attack: PKCE downgrade", () => {
  it("a challenge was sent, the verifier is missing: refused, nothing issued", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { challenge } = pkce()
    const { code } = await codeFor(ada, { code_challenge: challenge, code_challenge_method: "S256" })
    refused(await exchange(bed, code), "invalid_grant")
    expect(bed.events()).not.toContain("tokenIssued/success")
  })

  it("a verifier for another challenge is refused, and so is the challenge itself sent as the verifier", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { challenge } = pkce()
    const one = await codeFor(ada, { code_challenge: challenge, code_challenge_method: "S256" })
    refused(await exchange(bed, one.code, { code_verifier: pkce().verifier }), "invalid_grant")
    const two = await codeFor(ada, { code_challenge: challenge, code_challenge_method: "S256" })
    // What an attacker who saw the authorization request holds: the challenge (plain-style downgrade).
    refused(await exchange(bed, two.code, { code_verifier: challenge }), "invalid_grant")
  })

  it("code_challenge_method=plain, a missing method, or an unknown one is refused at authorize (error to the client, no code)", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { verifier } = pkce()
    for (const method of ["plain", undefined, "s256", "S512"]) {
      const params: Record<string, string> = { code_challenge: verifier.slice(0, 43) }
      if (method) params.code_challenge_method = method
      const { location } = await authorizeAs(ada, params)
      expect(location?.origin + location!.pathname).toBe("https://rp.example/callback")
      expect(location!.searchParams.get("error")).toBe("invalid_request")
      expect(location!.searchParams.get("code")).toBeNull()
    }
  })

  it("a public client without PKCE gets no code", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { location } = await authorizeAs(ada, { client_id: "native", redirect_uri: "http://127.0.0.1/callback" })
    expect(location!.searchParams.get("error")).toBe("invalid_request")
    expect(location!.searchParams.get("code")).toBeNull()
  })

  it("a public client's code cannot be redeemed without its verifier, nor with a wrong one", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { verifier, challenge } = pkce()
    const params = { client_id: "native", redirect_uri: "http://127.0.0.1/callback", code_challenge: challenge, code_challenge_method: "S256" }
    const a = await codeFor(ada, params)
    refused(await bed.call("/auth/oidc/token", { form: nativeForm(a.code) }), "invalid_grant")
    const b = await codeFor(ada, params)
    refused(await bed.call("/auth/oidc/token", { form: nativeForm(b.code, { code_verifier: verifier + "x" }) }), "invalid_grant")
    const c = await codeFor(ada, params)
    expect((await bed.call("/auth/oidc/token", { form: nativeForm(c.code, { code_verifier: verifier }) })).status).toBe(200)
  })

  it("a confidential client that sent a challenge then omits the verifier is refused (its secret does not stand in for PKCE)", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { challenge } = pkce()
    const { code } = await codeFor(ada, { code_challenge: challenge, code_challenge_method: "S256", scope: "openid offline_access" })
    refused(await exchange(bed, code), "invalid_grant")
    refused(await exchange(bed, code, { code_verifier: pkce().verifier }), "invalid_grant")
  })

  it("a verifier sent for a code issued without a challenge is refused (downgrade injection)", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada)
    refused(await exchange(bed, code, { code_verifier: pkce().verifier }), "invalid_grant")
  })

  it("malformed verifiers and challenges are refused: too short, too long, outside the alphabet", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { challenge } = pkce()
    for (const verifier of ["a".repeat(42), "a".repeat(129), "a".repeat(42) + "+", "a".repeat(42) + "/"]) {
      const { code } = await codeFor(ada, { code_challenge: challenge, code_challenge_method: "S256" })
      refused(await exchange(bed, code, { code_verifier: verifier }), "invalid_grant")
    }
    for (const bad of ["a".repeat(42), "a".repeat(44), "a".repeat(42) + "="]) {
      const { location } = await authorizeAs(ada, { code_challenge: bad, code_challenge_method: "S256" })
      expect(location!.searchParams.get("error")).toBe("invalid_request")
    }
  })
})
