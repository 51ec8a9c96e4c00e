/**
 * What an attacker — or a confused client — gets: no token, a garbage or revoked token, one
 * organization's token or ids used on another's endpoint, addresses outside the verified
 * domains, read-only attributes, stale versions, oversized pages and requests.
 */
import { beforeEach, describe, expect, it } from "vitest"
import { authenticateScim, hashScimToken, newScimToken } from "../../src/scim/auth.js"
import { GROUP_SCHEMA, PATCH_OP, USER_SCHEMA, world, type World } from "./world.js"

const user = (userName: string) => ({ schemas: [USER_SCHEMA], userName, emails: [{ value: userName, type: "work", primary: true }], active: true })

let w: World
let tokenA: string
let tokenB: string
beforeEach(async () => {
  w = world()
  tokenA = (await w.token("org-a")).token
  tokenB = (await w.token("org-b")).token
})

describe("bearer tokens", () => {
  it("are scim_ and 43 base64url characters, stored only as their SHA-256", () => {
    const token = newScimToken()
    expect(token).toMatch(/^scim_[A-Za-z0-9_-]{43}$/)
    expect(hashScimToken(token)).toMatch(/^[0-9a-f]{64}$/)
    expect(newScimToken()).not.toBe(token)
  })

  it("refuses a missing, malformed, garbage or Basic token with 401 and WWW-Authenticate", async () => {
    for (const authorization of [null, "", "Bearer", "Basic dXNlcjpwYXNz", "Bearer abc", `Bearer ${newScimToken()}`, `Bearer ${tokenA}x`, `Bearer ${tokenA} extra`]) {
      const res = await w.call(tokenA, "org-a", "GET", "/Users", undefined, { authorization })
      expect(res.status, String(authorization)).toBe(401)
      expect(res.headers["WWW-Authenticate"]).toMatch(/^Bearer realm="SCIM"/)
      expect(res.body).toMatchObject({ schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"], status: "401" })
      expect(JSON.stringify(res.body)).not.toContain(tokenA)
    }
  })

  it("refuses a revoked token", async () => {
    const { token, id } = await w.token("org-a")
    expect((await w.call(token, "org-a", "GET", "/Users")).status).toBe(200)
    await w.store.revokeScimToken(id)
    expect((await w.call(token, "org-a", "GET", "/Users")).status).toBe(401)
  })

  it("refuses one connection's token on another connection's endpoint, even of the same organization", async () => {
    const other = newScimToken()
    await w.store.addScimToken({ id: "t-other", connectionId: "conn-other-of-a", organizationId: "org-a", hash: hashScimToken(other), createdAt: new Date(), lastUsedAt: null })
    expect((await w.call(other, "org-a", "GET", "/Users")).status).toBe(401)
  })

  it("refuses organization A's token on organization B's endpoint", async () => {
    const res = await w.call(tokenA, "org-b", "GET", "/Users")
    expect(res.status).toBe(401)
    expect(res.headers["WWW-Authenticate"]).toContain('error="invalid_token"')
  })

  it("records when a token was last used, at most once a minute", async () => {
    const { token, id } = await w.token("org-a")
    const t0 = new Date("2026-11-29T03:00:00Z")
    await authenticateScim(w.store, `Bearer ${token}`, t0)
    await authenticateScim(w.store, `Bearer ${token}`, new Date(t0.getTime() + 30_000))
    expect((await w.store.listScimTokens("conn-org-a")).find((t) => t.id === id)?.lastUsedAt).toEqual(t0)
  })
})

describe("organizations are apart", () => {
  it("does not show, change or delete organization A's user through B's endpoint", async () => {
    const id = (await w.call(tokenA, "org-a", "POST", "/Users", user("ada@acme.com"))).body.id
    expect((await w.call(tokenB, "org-b", "GET", `/Users/${id}`)).status).toBe(404)
    expect((await w.call(tokenB, "org-b", "GET", "/Users")).body.totalResults).toBe(0)
    expect((await w.call(tokenB, "org-b", "PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: false } }] })).status).toBe(404)
    expect((await w.call(tokenB, "org-b", "DELETE", `/Users/${id}`)).status).toBe(404)
    expect(w.members.get(`org-a\n${id}`)).toBe("member")
  })

  it("refuses organization A's user id as a member of B's group", async () => {
    const id = (await w.call(tokenA, "org-a", "POST", "/Users", user("ada@acme.com"))).body.id
    const res = await w.call(tokenB, "org-b", "POST", "/Groups", { schemas: [GROUP_SCHEMA], displayName: "Admins", members: [{ value: id }] })
    expect(res.status).toBe(400)
    expect(res.body.scimType).toBe("invalidValue")
    expect(await w.store.listScimGroups("org-b")).toEqual([])
  })
})

describe("provisioning stays inside the verified domains", () => {
  it("refuses an address of another organization's domain, and makes no user", async () => {
    const res = await w.call(tokenA, "org-a", "POST", "/Users", user("ceo@globex.com"))
    expect(res.status).toBe(400)
    expect(res.body.scimType).toBe("invalidValue")
    expect(await w.adapter.getUserByEmail!("ceo@globex.com")).toBeNull()
    expect(await w.store.listScimUsers("org-a")).toEqual([])
  })

  it("refuses a user without any address, or with an unverified one in emails", async () => {
    expect((await w.call(tokenA, "org-a", "POST", "/Users", { schemas: [USER_SCHEMA], userName: "no-email" })).body.scimType).toBe("invalidValue")
    const res = await w.call(tokenA, "org-a", "POST", "/Users", { schemas: [USER_SCHEMA], userName: "ada@acme.com", emails: [{ value: "ada@evil.example", primary: true }] })
    expect(res.status).toBe(400)
    expect(await w.adapter.getUserByEmail!("ada@acme.com")).toBeNull()
  })
})

describe("requests the server refuses", () => {
  it("answers 400 for a body that is not an object, or without userName, and 404 for unknown endpoints", async () => {
    expect((await w.call(tokenA, "org-a", "POST", "/Users", [1, 2])).body.scimType).toBe("invalidSyntax")
    expect((await w.call(tokenA, "org-a", "POST", "/Users", { emails: [{ value: "a@acme.com" }] })).body.scimType).toBe("invalidValue")
    expect((await w.call(tokenA, "org-a", "GET", "/Nope")).status).toBe(404)
    expect((await w.call(tokenA, "org-a", "DELETE", "/Users")).status).toBe(405)
    expect((await w.call(tokenA, "org-a", "POST", "/Bulk", {})).status).toBe(501)
  })

  it("refuses changing id or meta by path, and ignores them in a body", async () => {
    const created = (await w.call(tokenA, "org-a", "POST", "/Users", { ...user("ada@acme.com"), id: "chosen", meta: { version: 'W/"99"' } })).body
    expect(created.id).not.toBe("chosen")
    expect(created.meta.version).toBe('W/"1"')
    const res = await w.call(tokenA, "org-a", "PATCH", `/Users/${created.id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", path: "id", value: "x" }] })
    expect(res.status).toBe(400)
    expect(res.body.scimType).toBe("mutability")
  })

  it("answers 412 to a stale If-Match and changes nothing", async () => {
    const id = (await w.call(tokenA, "org-a", "POST", "/Users", user("ada@acme.com"))).body.id
    const stale = await w.call(tokenA, "org-a", "PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: false } }] }, { ifMatch: 'W/"7"' })
    expect(stale.status).toBe(412)
    expect(w.members.get(`org-a\n${id}`)).toBe("member")
    const fresh = await w.call(tokenA, "org-a", "PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { title: "Countess" } }] }, { ifMatch: 'W/"1"' })
    expect(fresh.status).toBe(200)
    expect(fresh.headers.ETag).toBe('W/"2"')
    expect((await w.call(tokenA, "org-a", "DELETE", `/Users/${id}`, undefined, { ifMatch: 'W/"1"' })).status).toBe(412)
    expect((await w.call(tokenA, "org-a", "DELETE", `/Users/${id}`, undefined, { ifMatch: '"2"' })).status).toBe(204)
  })

  it("caps pages at 200 and refuses a count that is not a number", async () => {
    for (let i = 0; i < 205; i++) await w.store.createScimUser({ id: `u${i}`, organizationId: "org-a", externalId: null, userName: `u${i}@acme.com`, active: true, attributes: {}, version: 1, createdAt: new Date(), updatedAt: new Date() })
    const page = await w.call(tokenA, "org-a", "GET", "/Users?count=100000")
    expect(page.body.totalResults).toBe(205)
    expect(page.body.itemsPerPage).toBe(200)
    expect((await w.call(tokenA, "org-a", "GET", "/Users?count=ten")).body.scimType).toBe("invalidValue")
  })

  it("refuses a renaming onto a taken userName with 409, and a taken group name", async () => {
    await w.call(tokenA, "org-a", "POST", "/Users", user("ada@acme.com"))
    const bob = (await w.call(tokenA, "org-a", "POST", "/Users", user("bob@acme.com"))).body.id
    const res = await w.call(tokenA, "org-a", "PATCH", `/Users/${bob}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", path: "userName", value: "ADA@acme.com" }] })
    expect(res.status).toBe(409)
    expect(res.body.scimType).toBe("uniqueness")
    await w.call(tokenA, "org-a", "POST", "/Groups", { displayName: "G1" })
    expect((await w.call(tokenA, "org-a", "POST", "/Groups", { displayName: "G1" })).status).toBe(409)
  })
})

describe("access comes back only when asked for", () => {
  it("keeps a deactivated user inactive through a PUT that leaves active out, or a PATCH that removes it", async () => {
    const id = (await w.call(tokenA, "org-a", "POST", "/Users", user("ada@acme.com"))).body.id
    await w.call(tokenA, "org-a", "PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: false } }] })
    const put = await w.call(tokenA, "org-a", "PUT", `/Users/${id}`, { schemas: [USER_SCHEMA], userName: "ada@acme.com", title: "Countess" })
    expect(put.status).toBe(200)
    expect(put.body.active).toBe(false)
    const removed = await w.call(tokenA, "org-a", "PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "remove", path: "active" }] })
    expect(removed.body.active).toBe(false)
    expect(w.members.has(`org-a\n${id}`)).toBe(false)
  })
})
