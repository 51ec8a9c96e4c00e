/**
 * The single-use attacks again on the real backends (PostgreSQL, MariaDB, Redis): a code, a
 * refresh token and a consent are spent once under 20 concurrent tries, and a replay ends
 * everything issued — the store's atomic step, not the memory store's event loop, is what holds.
 */
import { SignJWT, exportJWK, generateKeyPair } from "jose"
import { afterAll, beforeAll, expect, it } from "vitest"
import type { OidcProviderStoreHarness } from "@portcullis/oidc-provider/testing"
import { CLIENTS, ISSUER, authorizeUrl, codeFor, field, testbed } from "../support.js"
import { mariadbBackend, mariadbGate, openRedisStore, openSqlStore, postgresBackend, postgresGate, redisGate } from "../store-harness.js"
import { dead, exchange, refresh, refused } from "./kit.js"

function singleUseAttacks(open: () => Promise<OidcProviderStoreHarness>) {
  let harness: OidcProviderStoreHarness
  beforeAll(async () => {
    harness = await open()
  })
  afterAll(() => harness?.cleanup())

  it("code replay: 20 concurrent redemptions, at most one wins, and the replays revoke what it got", async () => {
    const bed = testbed({ store: harness.store })
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada, { scope: "openid offline_access" })
    const answers = await Promise.all(Array.from({ length: 20 }, () => exchange(bed, code)))
    const winners = answers.filter((a) => a.status === 200)
    // The store lets exactly one redemption take the code. Whether that one still answers 200
    // is a race with the replays, each of which revokes the grant: on a loaded machine a
    // replay can revoke it before the taker reads it back, and the taker is refused too
    // (`grants/authorization-code.ts`). Either way nothing issued from the code stays alive.
    expect(winners.length).toBeLessThanOrEqual(1)
    for (const a of answers.filter((a) => a.status !== 200)) refused(a, "invalid_grant")
    for (const winner of winners) {
      await dead(bed, winner.body.access_token)
      refused(await refresh(bed, winner.body.refresh_token), "invalid_grant")
    }
    refused(await exchange(bed, code), "invalid_grant")
  })

  it("refresh rotation race: 20 at once, at most one rotation, and the family ends", async () => {
    const bed = testbed({ store: harness.store })
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada, { scope: "openid offline_access" })
    const tokens = (await exchange(bed, code)).body
    const answers = await Promise.all(Array.from({ length: 20 }, () => refresh(bed, tokens.refresh_token)))
    const winners = answers.filter((a) => a.status === 200)
    expect(winners.length).toBeLessThanOrEqual(1)
    for (const w of winners) refused(await refresh(bed, w.body.refresh_token), "invalid_grant")
    await dead(bed, tokens.access_token)
  })

  it("private_key_jwt: one assertion sent 20 times at once authenticates once", async () => {
    const { publicKey, privateKey } = await generateKeyPair("ES256")
    const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256" }
    const bed = testbed({ store: harness.store, provider: { clients: [...CLIENTS, { clientId: "signer", jwks: { keys: [jwk] }, redirectUris: [], grantTypes: ["client_credentials"], scope: "read" }] } })
    const assertion = await new SignJWT({ jti: `j-${Math.random()}` }).setProtectedHeader({ alg: "ES256", kid: "k1" }).setIssuer("signer").setSubject("signer").setAudience(ISSUER).setIssuedAt().setExpirationTime("2m").sign(privateKey)
    const form = { grant_type: "client_credentials", client_id: "signer", client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", client_assertion: assertion }
    const answers = await Promise.all(Array.from({ length: 20 }, () => bed.call("/auth/oidc/token", { form })))
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array.from({ length: 19 }, () => 401)])
  })

  it("consent replay: 20 posts of one consent form, exactly one code", async () => {
    const bed = testbed({ store: harness.store })
    const ada = await bed.person("ada")
    const page = await (await ada.browser.request(authorizeUrl({}))).text()
    const form = { interaction: field(page, "interaction"), csrfToken: field(page, "csrfToken"), decision: "allow" }
    const answers = await Promise.all(Array.from({ length: 20 }, () => ada.browser.request("/auth/oidc/consent", { form })))
    expect(answers.filter((a) => new URL(a.headers.get("location") ?? "http://x/").searchParams.get("code"))).toHaveLength(1)
    expect(answers.every((a) => a.status < 500)).toBe(true)
  })
}

postgresGate.describe("attack on PostgreSQL: single use", () => singleUseAttacks(() => openSqlStore(postgresBackend())))
mariadbGate.describe("attack on MariaDB: single use", () => singleUseAttacks(() => openSqlStore(mariadbBackend())))
redisGate.describe("attack on Redis: single use", () => singleUseAttacks(openRedisStore))
