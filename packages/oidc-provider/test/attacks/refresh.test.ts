import { describe, expect, it } from "vitest"
import { codeFor, testbed, type Testbed } from "../support.js"
import { dead, decodeJwt, exchange, first, introspect, refresh, refused, userinfo, web } from "./kit.js"

async function family(bed: Testbed, scope = "openid email profile offline_access") {
  const ada = await bed.person(`ada${Math.random().toString(36).slice(2, 8)}`)
  const { code } = await codeFor(ada, { scope })
  const answer = await exchange(bed, code)
  expect(answer.status).toBe(200)
  return { ada, ...(answer.body as { access_token: string; refresh_token: string; id_token: string }) }
}

describe("attack: refresh token reuse", () => {
  it("a rotated token presented again revokes the whole family: the newest refresh token and every access token", async () => {
    const bed = testbed()
    const t0 = await family(bed)
    const t1 = (await refresh(bed, t0.refresh_token)).body
    const t2 = (await refresh(bed, t1.refresh_token)).body
    expect((await userinfo(bed, t2.access_token)).status).toBe(200)
    // The thief replays the first token.
    refused(await refresh(bed, t0.refresh_token), "invalid_grant")
    for (const access of [t0.access_token, t1.access_token, t2.access_token]) await dead(bed, access)
    refused(await refresh(bed, t2.refresh_token), "invalid_grant")
    expect((await introspect(bed, t2.refresh_token)).body).toEqual({ active: false })
    expect(bed.audit.find((e) => e.type === "oidc.refreshReuseDetected")).toMatchObject({ outcome: "failure", userId: t0.ada.id, details: { clientId: "web" } })
  })

  it("the rotation race: 20 refreshes of one token at once — one rotation, the others are reuse, so the family (the winner's new token too) ends", async () => {
    const bed = testbed()
    const t0 = await family(bed)
    const answers = await Promise.all(Array.from({ length: 20 }, () => refresh(bed, t0.refresh_token)))
    const winners = answers.filter((a) => a.status === 200)
    expect(winners.length).toBeLessThanOrEqual(1)
    for (const loser of answers.filter((a) => a.status !== 200)) refused(loser, "invalid_grant")
    for (const w of winners) {
      await dead(bed, w.body.access_token)
      refused(await refresh(bed, w.body.refresh_token), "invalid_grant")
    }
    expect(bed.events()).toContain("refreshReuseDetected/failure")
  })

  it("a revoked refresh token (RFC 7009) is dead, and so is the family's access token", async () => {
    const bed = testbed()
    const t0 = await family(bed)
    expect((await bed.call("/auth/oidc/revoke", { form: { token: t0.refresh_token }, headers: web })).status).toBe(200)
    refused(await refresh(bed, t0.refresh_token), "invalid_grant")
    await dead(bed, t0.access_token)
  })
})

describe("attack: refresh with another client's token", () => {
  it("is refused and spends nothing: the rightful client still refreshes, no reuse is declared", async () => {
    const bed = testbed()
    const t0 = await family(bed)
    refused(await refresh(bed, t0.refresh_token, {}, first), "invalid_grant")
    refused(await bed.call("/auth/oidc/token", { form: { grant_type: "refresh_token", refresh_token: t0.refresh_token, client_id: "native" } }), "invalid_grant")
    refused(await bed.call("/auth/oidc/token", { form: { grant_type: "refresh_token", refresh_token: t0.refresh_token, client_id: "web" } }), "invalid_client", 401)
    expect(bed.events()).not.toContain("refreshReuseDetected/failure")
    expect((await refresh(bed, t0.refresh_token)).status).toBe(200)
  })
})

describe("attack: scope widening at refresh", () => {
  it("a scope the grant does not hold is refused and spends nothing; narrowing narrows this answer only", async () => {
    const bed = testbed()
    const t0 = await family(bed, "openid email offline_access")
    for (const scope of ["openid email offline_access profile", "openid admin", "read", "openid  email offline_access organization", "", " "]) {
      refused(await refresh(bed, t0.refresh_token, { scope }), "invalid_scope")
    }
    const narrowed = await refresh(bed, t0.refresh_token, { scope: "openid" })
    expect(narrowed.status).toBe(200)
    expect(decodeJwt(narrowed.body.access_token).payload.scope).toBe("openid")
    expect((await userinfo(bed, narrowed.body.access_token)).body.email).toBeUndefined()
    // The family keeps the grant's scope: widening back to it is not widening.
    const back = await refresh(bed, narrowed.body.refresh_token, { scope: "openid email" })
    expect(back.status).toBe(200)
    expect(decodeJwt(back.body.access_token).payload.scope).toBe("openid email")
    refused(await refresh(bed, back.body.refresh_token, { scope: "openid email profile" }), "invalid_scope")
  })

  it("a code granted without offline_access gets no refresh token to widen from", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada, { scope: "openid" })
    expect((await exchange(bed, code)).body.refresh_token).toBeUndefined()
  })
})
