/**
 * Rotating the configuration's secret (a new one added on top of the old, `AUTH_SECRET_1..3`)
 * must not stop the provider: stored signing keys sealed under the old secret still open, a
 * fresh key sealed under the new one takes over, and tokens signed before verify after. With
 * the old secret removed too soon, the error is logged once and a new key made — never a
 * provider that fails every request.
 */
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose"
import { describe, expect, it } from "vitest"
import { memoryOidcProviderStore } from "@portcullis/oidc-provider/memory"
import { SECRET } from "../../core/test/helpers.js"
import { ISSUER, RP, SECRET_WEB, basic, codeFor, testbed, type Testbed } from "./support.js"

const NEWER = "the-rotated-in-secret-with-at-least-32-characters"

async function tokensOf(bed: Testbed, name = "ada") {
  const ada = await bed.person(name)
  const { code } = await codeFor(ada)
  const answer = await bed.call("/auth/oidc/token", { form: { grant_type: "authorization_code", code, redirect_uri: RP }, headers: basic("web", SECRET_WEB) })
  expect(answer.status).toBe(200)
  return answer.body as { access_token: string; id_token: string }
}

const kids = async (bed: Testbed) => ((await bed.call("/auth/oidc/jwks")).body.keys as { kid: string }[]).map((k) => k.kid)

describe("a new secret added on top of the old one", () => {
  it("keeps signing: the old keys still open, a fresh key sealed under the new secret signs, and the old tokens verify", async () => {
    const store = memoryOidcProviderStore()
    const before = testbed({ store })
    const old = await tokensOf(before)
    const oldKid = decodeProtectedHeader(old.access_token).kid!

    const after = testbed({ store, config: { secret: [NEWER, SECRET] } })
    const fresh = await tokensOf(after)
    const newKid = decodeProtectedHeader(fresh.access_token).kid!
    expect(newKid).not.toBe(oldKid)
    // The old key is still published (retired), so what it signed verifies, at the new instance too.
    const published = (await after.call("/auth/oidc/jwks")).body
    expect(published.keys.map((k: { kid: string }) => k.kid)).toEqual(expect.arrayContaining([oldKid, newKid]))
    await jwtVerify(old.access_token, createLocalJWKSet(published), { issuer: ISSUER })
    await jwtVerify(fresh.id_token, createLocalJWKSet(published), { issuer: ISSUER, audience: "web" })
    expect((await after.call("/auth/oidc/userinfo", { headers: { authorization: `Bearer ${old.access_token}` } })).status).not.toBe(500)
    expect(after.log.lines.join("\n")).not.toMatch(/none of the configured secrets/)

    // Once the old secret is removed, the new key still opens: nothing is regenerated.
    const later = testbed({ store, config: { secret: NEWER } })
    const third = await tokensOf(later)
    expect(decodeProtectedHeader(third.access_token).kid).toBe(newKid)
    expect(later.log.lines.join("\n")).not.toMatch(/none of the configured secrets/)
  })

  it("an instance still on the old secret alone (a rolling deploy) signs with the key it opens, and adds none", async () => {
    const store = memoryOidcProviderStore()
    const oldOnly = testbed({ store })
    const first = decodeProtectedHeader((await tokensOf(oldOnly)).access_token).kid
    const rotated = testbed({ store, config: { secret: [NEWER, SECRET] } })
    await tokensOf(rotated)
    const count = (await store.listSigningKeys()).length
    const stale = testbed({ store })
    expect(decodeProtectedHeader((await tokensOf(stale)).access_token).kid).toBe(first)
    expect(await store.listSigningKeys()).toHaveLength(count)
  })
})

describe("the old secret removed before the keys were rotated", () => {
  it("logs a clear error once, makes a new key and keeps answering — no crash loop", async () => {
    const store = memoryOidcProviderStore()
    const before = testbed({ store })
    const old = await tokensOf(before)
    const oldKid = decodeProtectedHeader(old.access_token).kid!

    const after = testbed({ store, config: { secret: NEWER } })
    const first = await tokensOf(after)
    const newKid = decodeProtectedHeader(first.access_token).kid!
    expect(newKid).not.toBe(oldKid)
    const errors = () => after.log.lines.filter((l) => /^UnreadableSigningKeys: oidcProvider: none of the configured secrets opens the stored ES256 signing keys/.test(l))
    expect(errors()).toHaveLength(1)
    expect(errors()[0]).toContain(oldKid)
    // The next requests sign with the new key without another error or another key.
    const count = (await store.listSigningKeys()).length
    const second = await tokensOf(after, "bob")
    expect(decodeProtectedHeader(second.access_token).kid).toBe(newKid)
    expect(errors()).toHaveLength(1)
    expect(await store.listSigningKeys()).toHaveLength(count)
    // Tokens of the old key still verify against the JWKS (its public part needs no secret).
    expect(await kids(after)).toContain(oldKid)
  })
})

describe("two instances making their first keys at the same moment", () => {
  it("each publishes the other's key soon after — a re-read within a second, not after keyCacheTtl (60 s here)", async () => {
    const store = memoryOidcProviderStore()
    const a = testbed({ store, provider: { keyCacheTtl: 60 } })
    const b = testbed({ store, provider: { keyCacheTtl: 60 } })
    await Promise.all([a.call("/auth/oidc/jwks"), b.call("/auth/oidc/jwks")])
    const all = (await store.listSigningKeys()).map((k) => k.kid)
    // Polled: without the short re-read, an instance would miss the other's keys for a minute.
    for (const bed of [a, b]) {
      let published: string[] = []
      for (let tries = 0; tries < 50 && !all.every((kid) => published.includes(kid)); tries++) {
        published = await kids(bed)
        if (!all.every((kid) => published.includes(kid))) await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(published).toEqual(expect.arrayContaining(all))
    }
  })
})
