import { describe, expect, it } from "vitest"
import { memoryOidcProviderStore } from "@portcullis/oidc-provider/memory"
import type { Grant, RefreshToken } from "@portcullis/oidc-provider"

const hour = () => new Date(Date.now() + 3600_000)
const grant = (id: string, extra: Partial<Grant> = {}): Grant => ({ id, clientId: "web", userId: "u1", scope: "openid", resources: [], createdAt: new Date(), expiresAt: hour(), ...extra })
const refresh = (tokenHash: string, grantId = "g1"): RefreshToken => ({ tokenHash, grantId, clientId: "web", userId: "u1", scope: "openid", resources: [], expiresAt: hour() })

describe("the memory store's single-use steps", () => {
  it("useOnce: 50 at once, exactly one true; again after the mark expired", async () => {
    const store = memoryOidcProviderStore()
    const answers = await Promise.all(Array.from({ length: 50 }, () => store.useOnce("jti:1", hour())))
    expect(answers.filter(Boolean)).toHaveLength(1)
    await store.useOnce("jti:2", new Date(Date.now() - 1))
    expect(await store.useOnce("jti:2", hour())).toBe(true)
  })

  it("takeCode: taken once, then replayed; missing when unknown or expired", async () => {
    const store = memoryOidcProviderStore()
    await store.createGrant(grant("g1"))
    await store.saveCode({ codeHash: "c", grantId: "g1", clientId: "web", userId: "u1", redirectUri: "https://rp/cb", scope: "openid", resources: [], expiresAt: hour() })
    const takes = await Promise.all(Array.from({ length: 50 }, () => store.takeCode("c")))
    expect(takes.filter((t) => t.status === "taken")).toHaveLength(1)
    expect(takes.filter((t) => t.status === "replayed")).toHaveLength(49)
    expect((await store.takeCode("nope")).status).toBe("missing")
    await store.saveCode({ codeHash: "old", grantId: "g1", clientId: "web", userId: "u1", redirectUri: "https://rp/cb", scope: "openid", resources: [], expiresAt: new Date(Date.now() - 1) })
    expect((await store.takeCode("old")).status).toBe("missing")
  })

  it("rotateRefreshToken: one rotation; a second is reuse and revokes the family", async () => {
    const store = memoryOidcProviderStore()
    await store.createGrant(grant("g1"))
    await store.saveRefreshToken(refresh("r1"))
    const rotations = await Promise.all(Array.from({ length: 50 }, (_, i) => store.rotateRefreshToken("r1", refresh(`r2-${i}`))))
    expect(rotations.filter((r) => r.status === "rotated")).toHaveLength(1)
    // The first reuse revokes the grant; later ones find a revoked family (missing).
    expect(rotations.filter((r) => r.status === "reused")).toHaveLength(1)
    expect(rotations.filter((r) => r.status === "missing")).toHaveLength(48)
    expect(await store.getGrant("g1")).toBeNull()
    const winner = rotations.findIndex((r) => r.status === "rotated")
    expect(await store.getRefreshToken(`r2-${winner}`)).toBeNull()
  })

  it("revokes grants by session and by user and client; consents are unions", async () => {
    const store = memoryOidcProviderStore()
    await store.createGrant(grant("a", { sessionKey: "s1" }))
    await store.createGrant(grant("b", { sessionKey: "s2" }))
    expect(await store.revokeGrantsOfSession("s1")).toBe(1)
    expect((await store.listGrants("u1")).map((g) => g.id)).toEqual(["b"])
    const now = new Date()
    await store.saveConsent({ userId: "u1", clientId: "web", scope: "openid", resources: ["https://a"], createdAt: now, updatedAt: now })
    await store.saveConsent({ userId: "u1", clientId: "web", scope: "email openid", resources: ["https://b"], createdAt: now, updatedAt: now })
    const consent = await store.getConsent("u1", "web")
    expect(consent!.scope.split(" ").sort()).toEqual(["email", "openid"])
    expect(consent!.resources.sort()).toEqual(["https://a", "https://b"])
    expect(await store.revokeConsent("u1", "web")).toBe(true)
    expect(await store.getGrant("b")).toBeNull()
    expect(await store.revokeConsent("u1", "web")).toBe(false)
  })

  it("interactions are taken once", async () => {
    const store = memoryOidcProviderStore()
    await store.putInteraction("i", "v", hour())
    const takes = await Promise.all(Array.from({ length: 50 }, () => store.takeInteraction("i")))
    expect(takes.filter((t) => t === "v")).toHaveLength(1)
  })

  it("returns copies: a caller's change does not reach the store", async () => {
    const store = memoryOidcProviderStore()
    await store.createGrant(grant("g"))
    const read = (await store.getGrant("g"))!
    read.scope = "admin"
    expect((await store.getGrant("g"))!.scope).toBe("openid")
  })
})
