import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { ISSUER, codeFor, testbed } from "../support.js"
import { decodeJwt, exchange, userinfo } from "./kit.js"

const planted = { nonce: "planted-nonce", at_hash: "planted", c_hash: "planted", s_hash: "planted", auth_time: 1, azp: "evil", sid: "planted-sid", exp: 4102444800, iat: 1, nbf: 4102444800, jti: "planted", iss: "https://evil.example", aud: "evil", sub: "user-admin", department: "research" }

describe("attack: an app's claims() cannot forge the ID token's own claims", () => {
  // Issue 34, found by this suite: claims() could set the claims added only when present.
  it("nonce, at_hash, auth_time, azp, sid and the JWT claims stay the provider's (or absent); other claims pass", async () => {
    const bed = testbed({ provider: { claims: () => planted } })
    const ada = await bed.person("ada")
    // No nonce asked: a planted one would be accepted by a relying party that sent none... or replayed one.
    const { code } = await codeFor(ada)
    const tokens = (await exchange(bed, code)).body
    const { payload, header } = decodeJwt(tokens.id_token)
    expect(header.typ).toBe("JWT")
    expect(payload.nonce).toBeUndefined()
    expect(payload.sid).toBeUndefined()
    expect(payload.nbf).toBeUndefined()
    expect(payload.jti).toBeUndefined()
    expect(payload.c_hash).toBeUndefined()
    expect(payload.s_hash).toBeUndefined()
    expect(payload).toMatchObject({ iss: ISSUER, sub: ada.id, aud: "web", azp: "web", department: "research" })
    expect(payload.exp).toBeLessThan(Date.now() / 1000 + 86400)
    expect(payload.iat).toBeGreaterThan(Date.now() / 1000 - 60)
    expect(payload.auth_time).toBeGreaterThan(Date.now() / 1000 - 60)
    const digest = createHash("sha256").update(tokens.access_token).digest()
    expect(payload.at_hash).toBe(digest.subarray(0, 16).toString("base64url"))
    // The access token carries none of the app's claims.
    expect(decodeJwt(tokens.access_token).payload.department).toBeUndefined()
    // userinfo: the subject is the provider's too.
    expect((await userinfo(bed, tokens.access_token)).body).toMatchObject({ sub: ada.id, department: "research" })
  })

  it("the request's nonce wins over a planted one", async () => {
    const bed = testbed({ provider: { claims: () => planted } })
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada, { nonce: "the-rps-nonce" })
    expect(decodeJwt((await exchange(bed, code)).body.id_token).payload.nonce).toBe("the-rps-nonce")
  })
})
