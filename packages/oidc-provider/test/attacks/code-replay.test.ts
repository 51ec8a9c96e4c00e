import { describe, expect, it } from "vitest"
import { memoryOidcProviderStore } from "@portcullis/oidc-provider/memory"
import { RP, SECRET_WEB, basic, codeFor, testbed } from "../support.js"
import { dead, exchange, first, introspect, refresh, refused } from "./kit.js"

describe("attack: authorization code replay", () => {
  it("a replayed code is refused and everything issued from it dies: access token at userinfo and introspection, refresh token", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada, { scope: "openid offline_access" })
    const tokens = (await exchange(bed, code)).body
    expect((await introspect(bed, tokens.access_token)).body.active).toBe(true)
    refused(await exchange(bed, code), "invalid_grant")
    await dead(bed, tokens.access_token)
    refused(await refresh(bed, tokens.refresh_token), "invalid_grant")
    expect((await introspect(bed, tokens.refresh_token)).body).toEqual({ active: false })
    expect(bed.audit.find((e) => e.type === "oidc.codeReplayDetected")).toMatchObject({ outcome: "failure", userId: ada.id, details: { clientId: "web" } })
  })

  it("a third redemption is refused too, and still issues nothing", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada)
    expect((await exchange(bed, code)).status).toBe(200)
    refused(await exchange(bed, code), "invalid_grant")
    refused(await exchange(bed, code), "invalid_grant")
  })

  it("a code stolen by another client is refused, and the victim's grant ends with it (the code is spent)", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada, { scope: "openid offline_access" })
    refused(await exchange(bed, code, {}, first), "invalid_grant")
    // The rightful client's later redemption gets nothing: a code that was seen twice is burnt.
    refused(await exchange(bed, code), "invalid_grant")
    expect(bed.events()).not.toContain("tokenIssued/success")
  })

  it("a code with another redirect_uri, or none, is refused", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    for (const redirect of [`${RP}/other`, `${RP}/`, RP.toUpperCase(), `${RP}?x=1`, `${RP}#f`, ""]) {
      const { code } = await codeFor(ada)
      refused(await exchange(bed, code, { redirect_uri: redirect }), "invalid_grant")
    }
    const { code } = await codeFor(ada)
    refused(await bed.call("/auth/oidc/token", { form: { grant_type: "authorization_code", code }, headers: basic("web", SECRET_WEB) }), "invalid_grant")
  })

  it("an expired code is refused", async () => {
    const store = memoryOidcProviderStore()
    // The store keeps what it is given: a code saved already expired stands for one that outlived its ttl.
    const saveCode = store.saveCode.bind(store)
    store.saveCode = (code) => saveCode({ ...code, expiresAt: new Date(Date.now() - 1000) })
    const bed = testbed({ store })
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada)
    refused(await exchange(bed, code), "invalid_grant")
  })

  it("a guessed or malformed code is refused without a store-visible effect", async () => {
    const bed = testbed()
    for (const code of ["", "x", "a".repeat(43), "../../etc", "%00", "a".repeat(5000)]) {
      const answer = await exchange(bed, code)
      expect(answer.status).toBe(400)
      expect(["invalid_grant", "invalid_request"]).toContain(answer.body.error)
      expect(answer.body.access_token).toBeUndefined()
    }
  })

  it("50 concurrent redemptions by the thief and the client: one wins, then the grant is revoked by the replays", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada)
    const answers = await Promise.all(Array.from({ length: 50 }, () => exchange(bed, code)))
    const winners = answers.filter((a) => a.status === 200)
    expect(winners).toHaveLength(1)
    await dead(bed, winners[0]!.body.access_token)
  })
})
