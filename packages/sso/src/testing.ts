/**
 * `@portcullis/sso/testing`: the conformance suite every SSO store runs on its real backend.
 * Each `describe` is one behaviour of the contract in `store/types.ts`, including what must
 * hold under 50 concurrent calls (single use stays single use) and when records expire.
 *
 * @example
 * ```ts
 * import { memorySsoStore } from "@portcullis/sso/memory"
 * import { ssoStoreConformance } from "@portcullis/sso/testing"
 *
 * ssoStoreConformance("memory", async () => ({ store: memorySsoStore(), cleanup: async () => {} }))
 * ```
 * @module
 */
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Connection, Domain, ScimGroup, ScimToken, ScimUser, SsoStore } from "./store/types.js"

/** What the suite is given: a store on a backend, and how to let go of it after the last spec. */
export interface SsoStoreHarness {
  store: SsoStore
  cleanup(): Promise<void>
}

const HOUR = 3_600_000
/** How long the expiry specs' records live: long enough for a slow round trip to land before. */
const SHORT_MS = 400

/**
 * Instants with millisecond precision, in the past and one second apart, so that creation
 * orders are distinct and clear of "now" on every backend (MySQL's `datetime(3)`).
 */
let clock = Date.now() - 24 * HOUR
const tick = () => new Date((clock += 1_000))
const later = (ms = HOUR) => new Date(Date.now() + ms)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const count = <T>(values: T[], value: T) => values.filter((v) => v === value).length

/** A SAML connection of a fresh organization unless `overrides` says otherwise. */
export function makeConnection(overrides: Partial<Connection> = {}): Connection {
  return {
    id: randomUUID(),
    organizationId: randomUUID(),
    kind: "saml",
    name: "Acme Okta",
    enabled: true,
    saml: {
      idpEntityId: "https://idp.example.com/metadata",
      ssoUrl: "https://idp.example.com/sso",
      certificates: ["MIIC-first", "MIIC-second"],
      allowIdpInitiated: false,
    },
    // Stand-ins (a store keeps them as text): not PEM, so nothing here reads as a shipped key.
    spKey: { privateKey: "sp-private-key-placeholder", certificate: "sp-certificate-placeholder" },
    roleRules: [{ claim: "groups", value: "admins", role: "admin" }],
    defaultRole: "member",
    createdAt: tick(),
    ...overrides,
  }
}

/** A pending claim of a random domain by a fresh organization unless `overrides` says otherwise. */
export function makeDomain(overrides: Partial<Domain> = {}): Domain {
  return {
    domain: `d${randomUUID().slice(0, 8)}.example.com`,
    organizationId: randomUUID(),
    token: `portcullis-verification=${randomUUID()}`,
    verifiedAt: null,
    requireSso: false,
    connectionId: null,
    createdAt: tick(),
    ...overrides,
  }
}

/** A SCIM user of `organizationId` with a random userName. */
export function makeScimUser(organizationId: string, overrides: Partial<ScimUser> = {}): ScimUser {
  const at = tick()
  return {
    id: randomUUID(),
    organizationId,
    externalId: randomUUID(),
    userName: `User.${randomUUID().slice(0, 8)}@Example.com`,
    active: true,
    attributes: { name: { givenName: "Ada", familyName: "Lovelace" }, emails: [{ value: "ada@example.com", primary: true }] },
    version: 1,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  }
}

/** A SCIM group of `organizationId` with a random displayName. */
export function makeScimGroup(organizationId: string, overrides: Partial<ScimGroup> = {}): ScimGroup {
  const at = tick()
  return { id: randomUUID(), organizationId, externalId: null, displayName: `Group ${randomUUID().slice(0, 8)}`, members: [], version: 1, createdAt: at, updatedAt: at, ...overrides }
}

function makeToken(connection: Connection, overrides: Partial<ScimToken> = {}): ScimToken {
  return { id: randomUUID(), connectionId: connection.id, organizationId: connection.organizationId, hash: randomUUID().replaceAll("-", "").repeat(2), createdAt: tick(), lastUsedAt: null, ...overrides }
}

/**
 * Registers the conformance suite for one SSO store. `makeStore` is called once, before the
 * first spec; every spec uses fresh ids, so specs share the store freely.
 *
 * @example
 * ```ts
 * ssoStoreConformance("Redis", async () => {
 *   const redis = new Redis(url)
 *   return { store: redisSsoStore(redis, { prefix }), cleanup: async () => void (await redis.quit()) }
 * })
 * ```
 */
export function ssoStoreConformance(name: string, makeStore: () => Promise<SsoStoreHarness>): void {
  describe(`${name}: SSO store conformance`, () => {
    let harness: SsoStoreHarness | undefined
    beforeAll(async () => {
      harness = await makeStore()
    })
    afterAll(() => harness?.cleanup())
    const store = () => {
      if (!harness) throw new Error("the store's harness did not open")
      return harness.store
    }

    describe("connections", () => {
      it("stores a connection and reads it back by id, and lists an organization's oldest first", async () => {
        const first = makeConnection()
        const second = makeConnection({ organizationId: first.organizationId, kind: "oidc", saml: undefined, spKey: undefined, oidc: { issuer: "https://op.example.com", clientId: "c", clientSecret: "s", scope: "openid email" } })
        await store().createConnection(second)
        await store().createConnection(first)
        await store().createConnection(makeConnection())
        expect(await store().getConnection(first.id)).toEqual(first)
        expect(await store().getConnection(second.id)).toEqual(second)
        expect(await store().listConnections(first.organizationId)).toEqual([first, second])
        expect(await store().getConnection(randomUUID())).toBeNull()
        expect(await store().listConnections(randomUUID())).toEqual([])
      })

      it("replaces a connection of the same organization; false for another organization or an unknown id", async () => {
        const connection = makeConnection()
        await store().createConnection(connection)
        const changed = { ...connection, name: "Acme Entra", enabled: false, roleRules: [], defaultRole: "viewer" }
        expect(await store().updateConnection(changed)).toBe(true)
        expect(await store().getConnection(connection.id)).toEqual(changed)
        // The same content again still finds the connection.
        expect(await store().updateConnection(changed)).toBe(true)
        expect(await store().updateConnection({ ...changed, organizationId: randomUUID(), name: "Hijack" })).toBe(false)
        expect(await store().updateConnection(makeConnection())).toBe(false)
        expect((await store().getConnection(connection.id))?.name).toBe("Acme Entra")
      })

      it("returns copies: changing a returned connection changes nothing stored", async () => {
        const connection = makeConnection()
        await store().createConnection(connection)
        const read = (await store().getConnection(connection.id))!
        read.roleRules.push({ claim: "x", value: "y", role: "owner" })
        read.saml!.certificates.length = 0
        expect(await store().getConnection(connection.id)).toEqual(connection)
      })

      it("deletes a connection with its SCIM tokens, and unlinks the domains routed to it", async () => {
        const connection = makeConnection()
        await store().createConnection(connection)
        const token = makeToken(connection)
        await store().addScimToken(token)
        const domain = makeDomain({ organizationId: connection.organizationId, connectionId: connection.id })
        await store().claimDomain(domain)
        await store().deleteConnection(connection.id)
        expect(await store().getConnection(connection.id)).toBeNull()
        expect(await store().findScimToken(token.hash)).toBeNull()
        expect(await store().listScimTokens(connection.id)).toEqual([])
        expect(await store().getDomain(domain.domain, domain.organizationId)).toEqual({ ...domain, connectionId: null })
      })
    })

    describe("domains", () => {
      it("keeps a claim per organization and reads the verified one without an organization", async () => {
        const claim = makeDomain()
        expect(await store().claimDomain(claim)).toBe("claimed")
        expect(await store().getDomain(claim.domain, claim.organizationId)).toEqual(claim)
        expect(await store().getDomain(claim.domain)).toBeNull()
        const at = tick()
        expect(await store().verifyDomain(claim.domain, claim.organizationId, at)).toBe("verified")
        expect(await store().getDomain(claim.domain)).toEqual({ ...claim, verifiedAt: at })
        // Verifying again keeps the first instant.
        expect(await store().verifyDomain(claim.domain, claim.organizationId, tick())).toBe("verified")
        expect((await store().getDomain(claim.domain, claim.organizationId))?.verifiedAt).toEqual(at)
      })

      it("keeps another organization's pending claim beside one, and lets the first to verify hold the domain", async () => {
        const first = makeDomain()
        const second = makeDomain({ domain: first.domain })
        expect(await store().claimDomain(first)).toBe("claimed")
        expect(await store().claimDomain(second)).toBe("claimed")
        expect(await store().verifyDomain(first.domain, second.organizationId, tick())).toBe("verified")
        expect(await store().verifyDomain(first.domain, first.organizationId, tick())).toBe("taken")
        expect((await store().getDomain(first.domain))?.organizationId).toBe(second.organizationId)
        expect((await store().getDomain(first.domain, first.organizationId))?.verifiedAt).toBeNull()
        // A verified claim is never taken over: a third organization's claim is refused.
        expect(await store().claimDomain(makeDomain({ domain: first.domain }))).toBe("taken")
      })

      it("keeps the first claim when an organization claims again, and answers missing for an unclaimed verification", async () => {
        const claim = makeDomain()
        await store().claimDomain(claim)
        expect(await store().claimDomain({ ...claim, token: "portcullis-verification=other" })).toBe("claimed")
        expect((await store().getDomain(claim.domain, claim.organizationId))?.token).toBe(claim.token)
        expect(await store().verifyDomain(claim.domain, randomUUID(), tick())).toBe("missing")
        expect(await store().verifyDomain(`none-${randomUUID()}.example`, claim.organizationId, tick())).toBe("missing")
      })

      it("lists an organization's claims by domain name", async () => {
        const organizationId = randomUUID()
        const b = makeDomain({ organizationId, domain: `b${randomUUID().slice(0, 6)}.example` })
        const a = makeDomain({ organizationId, domain: `a${randomUUID().slice(0, 6)}.example` })
        await store().claimDomain(b)
        await store().claimDomain(a)
        expect(await store().listDomains(organizationId)).toEqual([a, b])
      })

      it("updates a claim's SSO requirement and routing; false for an unknown claim", async () => {
        const claim = makeDomain()
        await store().claimDomain(claim)
        expect(await store().updateDomain(claim.domain, claim.organizationId, { requireSso: true })).toBe(true)
        expect(await store().updateDomain(claim.domain, claim.organizationId, { connectionId: "c1" })).toBe(true)
        expect(await store().updateDomain(claim.domain, claim.organizationId, { connectionId: "c1" })).toBe(true)
        expect(await store().getDomain(claim.domain, claim.organizationId)).toEqual({ ...claim, requireSso: true, connectionId: "c1" })
        expect(await store().updateDomain(claim.domain, claim.organizationId, { connectionId: null })).toBe(true)
        expect((await store().getDomain(claim.domain, claim.organizationId))?.connectionId).toBeNull()
        expect(await store().updateDomain(claim.domain, randomUUID(), { requireSso: true })).toBe(false)
      })

      it("frees a verified domain when its claim is removed", async () => {
        const claim = makeDomain()
        await store().claimDomain(claim)
        await store().verifyDomain(claim.domain, claim.organizationId, tick())
        await store().removeDomain(claim.domain, claim.organizationId)
        expect(await store().getDomain(claim.domain, claim.organizationId)).toBeNull()
        expect(await store().getDomain(claim.domain)).toBeNull()
        const next = makeDomain({ domain: claim.domain })
        expect(await store().claimDomain(next)).toBe("claimed")
        expect(await store().verifyDomain(next.domain, next.organizationId, tick())).toBe("verified")
      })

      it("of 50 organizations claiming and verifying one domain at once, exactly one holds it", async () => {
        const domain = `race-${randomUUID().slice(0, 8)}.example`
        const claims = Array.from({ length: 50 }, () => makeDomain({ domain }))
        const outcomes = await Promise.all(claims.map(async (claim) => {
          const claimed = await store().claimDomain(claim)
          return claimed === "taken" ? "taken" : store().verifyDomain(domain, claim.organizationId, tick())
        }))
        expect(count(outcomes, "verified")).toBe(1)
        expect(count(outcomes, "taken")).toBe(49)
        const winner = claims[outcomes.indexOf("verified")]!
        expect((await store().getDomain(domain))?.organizationId).toBe(winner.organizationId)
        const verified = (await Promise.all(claims.map((c) => store().getDomain(domain, c.organizationId)))).filter((d) => d?.verifiedAt)
        expect(verified).toHaveLength(1)
      })
    })

    describe("SCIM tokens", () => {
      it("finds a token by its hash, lists a connection's, records its use and revokes it", async () => {
        const connection = makeConnection()
        const first = makeToken(connection)
        const second = makeToken(connection)
        await store().addScimToken(second)
        await store().addScimToken(first)
        expect(await store().findScimToken(first.hash)).toEqual(first)
        expect(await store().findScimToken("0".repeat(64))).toBeNull()
        expect(await store().listScimTokens(connection.id)).toEqual([first, second])
        const at = tick()
        await store().touchScimToken(first.id, at)
        expect((await store().findScimToken(first.hash))?.lastUsedAt).toEqual(at)
        await store().revokeScimToken(first.id)
        expect(await store().findScimToken(first.hash)).toBeNull()
        expect(await store().listScimTokens(connection.id)).toEqual([second])
        // Touching a revoked token does not bring it back.
        await store().touchScimToken(first.id, tick())
        expect(await store().findScimToken(first.hash)).toBeNull()
      })
    })

    describe("SCIM users", () => {
      it("stores a user and reads it by id, by userName (any case) and by externalId", async () => {
        const organizationId = randomUUID()
        const user = makeScimUser(organizationId)
        expect(await store().createScimUser(user)).toBe(true)
        expect(await store().getScimUser(organizationId, user.id)).toEqual(user)
        expect(await store().findScimUser(organizationId, { userName: user.userName.toUpperCase() })).toEqual(user)
        expect(await store().findScimUser(organizationId, { externalId: user.externalId! })).toEqual(user)
        expect(await store().findScimUser(organizationId, { userName: "nobody@example.com" })).toBeNull()
        // Another organization's user is not found through this one.
        expect(await store().getScimUser(randomUUID(), user.id)).toBeNull()
        expect(await store().findScimUser(randomUUID(), { userName: user.userName })).toBeNull()
      })

      it("refuses a second record of the same id, or of the same userName in another case", async () => {
        const organizationId = randomUUID()
        const user = makeScimUser(organizationId)
        await store().createScimUser(user)
        expect(await store().createScimUser({ ...user, userName: "other@example.com" })).toBe(false)
        expect(await store().createScimUser(makeScimUser(organizationId, { userName: user.userName.toLowerCase() }))).toBe(false)
        // The same userName in another organization is another user.
        expect(await store().createScimUser(makeScimUser(randomUUID(), { userName: user.userName }))).toBe(true)
      })

      it("lists an organization's users by creation, then id", async () => {
        const organizationId = randomUUID()
        const at = tick()
        const users = [makeScimUser(organizationId, { id: "b", createdAt: at }), makeScimUser(organizationId, { id: "a", createdAt: at }), makeScimUser(organizationId)]
        for (const user of [users[2]!, users[0]!, users[1]!]) await store().createScimUser(user)
        expect((await store().listScimUsers(organizationId)).map((u) => u.id)).toEqual(["a", "b", users[2]!.id])
      })

      it("replaces a user and bumps its version; a stale version is a conflict, an unknown user null", async () => {
        const organizationId = randomUUID()
        const user = makeScimUser(organizationId)
        await store().createScimUser(user)
        const next = { ...user, active: false, userName: "Renamed@Example.com", attributes: { title: "Engineer" }, updatedAt: tick() }
        const updated = await store().updateScimUser(next, 1)
        expect(updated).toEqual({ ...next, version: 2 })
        expect(await store().getScimUser(organizationId, user.id)).toEqual({ ...next, version: 2 })
        expect(await store().findScimUser(organizationId, { userName: "renamed@example.com" })).toEqual({ ...next, version: 2 })
        expect(await store().updateScimUser({ ...next, active: true }, 1)).toBe("conflict")
        expect((await store().updateScimUser({ ...next, active: true }))).toMatchObject({ active: true, version: 3 })
        expect(await store().updateScimUser(makeScimUser(organizationId), 1)).toBeNull()
      })

      it("refuses to rename a user to another's userName", async () => {
        const organizationId = randomUUID()
        const a = makeScimUser(organizationId)
        const b = makeScimUser(organizationId)
        await store().createScimUser(a)
        await store().createScimUser(b)
        expect(await store().updateScimUser({ ...b, userName: a.userName.toUpperCase() }, 1)).toBe("conflict")
        expect(await store().getScimUser(organizationId, b.id)).toEqual(b)
      })

      it("deletes a user, who leaves the organization's groups", async () => {
        const organizationId = randomUUID()
        const user = makeScimUser(organizationId)
        const other = makeScimUser(organizationId)
        await store().createScimUser(user)
        await store().createScimUser(other)
        const group = makeScimGroup(organizationId, { members: [user.id, other.id] })
        const untouched = makeScimGroup(organizationId, { members: [other.id] })
        await store().createScimGroup(group)
        await store().createScimGroup(untouched)
        expect(await store().deleteScimUser(organizationId, user.id)).toBe(true)
        expect(await store().getScimUser(organizationId, user.id)).toBeNull()
        expect(await store().getScimGroup(organizationId, group.id)).toMatchObject({ members: [other.id], version: 2 })
        expect(await store().getScimGroup(organizationId, untouched.id)).toEqual(untouched)
        expect(await store().deleteScimUser(organizationId, user.id)).toBe(false)
        // Its userName is free again.
        expect(await store().createScimUser(makeScimUser(organizationId, { userName: user.userName }))).toBe(true)
      })

      it("of 50 concurrent creations with one userName in different cases, exactly one is stored", async () => {
        const organizationId = randomUUID()
        const userName = `race.${randomUUID().slice(0, 8)}@example.com`
        const users = Array.from({ length: 50 }, (_, n) => makeScimUser(organizationId, { userName: n % 2 ? userName.toUpperCase() : userName }))
        const outcomes = await Promise.all(users.map((user) => store().createScimUser(user)))
        expect(count(outcomes, true)).toBe(1)
        const stored = await store().listScimUsers(organizationId)
        expect(stored.map((u) => u.id)).toEqual([users[outcomes.indexOf(true)]!.id])
      })

      it("of 50 concurrent updates from one version, exactly one applies", async () => {
        const organizationId = randomUUID()
        const user = makeScimUser(organizationId)
        await store().createScimUser(user)
        const outcomes = await Promise.all(Array.from({ length: 50 }, (_, n) => store().updateScimUser({ ...user, attributes: { n } }, 1)))
        const applied = outcomes.filter((o) => o !== "conflict")
        expect(applied).toHaveLength(1)
        expect(count(outcomes, "conflict")).toBe(49)
        expect(await store().getScimUser(organizationId, user.id)).toEqual(applied[0])
        expect(applied[0]).toMatchObject({ version: 2 })
      })
    })

    describe("SCIM groups", () => {
      it("stores, lists, replaces with versions and deletes groups; displayNames are unique per organization", async () => {
        const organizationId = randomUUID()
        const group = makeScimGroup(organizationId, { members: ["u1", "u2"], externalId: "ext-1" })
        const second = makeScimGroup(organizationId)
        expect(await store().createScimGroup(second)).toBe(true)
        expect(await store().createScimGroup(group)).toBe(true)
        expect(await store().createScimGroup(makeScimGroup(organizationId, { displayName: group.displayName }))).toBe(false)
        expect(await store().createScimGroup({ ...group, displayName: "Other" })).toBe(false)
        expect(await store().getScimGroup(organizationId, group.id)).toEqual(group)
        expect(await store().listScimGroups(organizationId)).toEqual([group, second])
        const next = { ...group, members: [], displayName: "Renamed", updatedAt: tick() }
        expect(await store().updateScimGroup(next, 1)).toEqual({ ...next, version: 2 })
        expect(await store().getScimGroup(organizationId, group.id)).toEqual({ ...next, version: 2 })
        expect(await store().updateScimGroup(next, 1)).toBe("conflict")
        expect(await store().updateScimGroup(makeScimGroup(organizationId))).toBeNull()
        expect(await store().deleteScimGroup(organizationId, group.id)).toBe(true)
        expect(await store().deleteScimGroup(organizationId, group.id)).toBe(false)
        expect(await store().getScimGroup(organizationId, group.id)).toBeNull()
      })
    })

    describe("single use", () => {
      it("records an id once per namespace", async () => {
        const id = randomUUID()
        expect(await store().useOnce("assertion", id, later())).toBe(true)
        expect(await store().useOnce("assertion", id, later())).toBe(false)
        expect(await store().useOnce("other", id, later())).toBe(true)
      })

      it("forgets an id once it expired, and records it again", async () => {
        const id = randomUUID()
        expect(await store().useOnce("assertion", id, later(SHORT_MS))).toBe(true)
        expect(await store().useOnce("assertion", id, later(SHORT_MS))).toBe(false)
        await sleep(SHORT_MS + 200)
        expect(await store().useOnce("assertion", id, later())).toBe(true)
        expect(await store().useOnce("assertion", id, later())).toBe(false)
      })

      it("of 50 concurrent uses of one id, exactly one is first", async () => {
        const id = randomUUID()
        const outcomes = await Promise.all(Array.from({ length: 50 }, () => store().useOnce("assertion", id, later())))
        expect(count(outcomes, true)).toBe(1)
      })

      it("takes a kept value once; a second take, an unknown id or another namespace get null", async () => {
        const id = randomUUID()
        await store().put("request", id, "value-1", later())
        expect(await store().take("other", id)).toBeNull()
        expect(await store().take("request", id)).toBe("value-1")
        expect(await store().take("request", id)).toBeNull()
        expect(await store().take("request", randomUUID())).toBeNull()
      })

      it("replaces a kept value put again under the same id, and keeps values as given", async () => {
        const id = randomUUID()
        const value = JSON.stringify({ relayState: "/dashboard?tab=1&x=ü", nonce: "n" })
        await store().put("request", id, "first", later())
        await store().put("request", id, value, later())
        expect(await store().take("request", id)).toBe(value)
        await store().put("request", id, "", later())
        expect(await store().take("request", id)).toBe("")
      })

      it("gives nothing for a value that expired", async () => {
        const id = randomUUID()
        await store().put("request", id, "stale", later(SHORT_MS))
        await sleep(SHORT_MS + 200)
        expect(await store().take("request", id)).toBeNull()
      })

      it("of 50 concurrent takes of one value, exactly one gets it", async () => {
        const id = randomUUID()
        await store().put("request", id, "the-request", later())
        const outcomes = await Promise.all(Array.from({ length: 50 }, () => store().take("request", id)))
        expect(count(outcomes, "the-request")).toBe(1)
        expect(count(outcomes, null)).toBe(49)
      })
    })

    describe("SSO sessions", () => {
      it("ends a user's sessions of one organization, and counts them", async () => {
        const userId = randomUUID()
        const organizationId = randomUUID()
        const [a, b, elsewhere, otherUser] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()]
        await store().recordSession(a, userId, organizationId, later())
        await store().recordSession(b, userId, organizationId, later())
        await store().recordSession(elsewhere, userId, randomUUID(), later())
        await store().recordSession(otherUser, randomUUID(), organizationId, later())
        expect(await store().sessionEnded(a)).toBe(false)
        expect(await store().endSessions(userId, organizationId)).toBe(2)
        expect(await store().sessionEnded(a)).toBe(true)
        expect(await store().sessionEnded(b)).toBe(true)
        expect(await store().sessionEnded(elsewhere)).toBe(false)
        expect(await store().sessionEnded(otherUser)).toBe(false)
        expect(await store().sessionEnded(randomUUID())).toBe(false)
        // Already ended: not counted again.
        expect(await store().endSessions(userId, organizationId)).toBe(0)
      })

      it("lets an ended session's mark go once it expired, and does not count expired sessions", async () => {
        const userId = randomUUID()
        const organizationId = randomUUID()
        const key = randomUUID()
        await store().recordSession(key, userId, organizationId, later(SHORT_MS))
        expect(await store().endSessions(userId, organizationId)).toBe(1)
        expect(await store().sessionEnded(key)).toBe(true)
        await sleep(SHORT_MS + 200)
        expect(await store().sessionEnded(key)).toBe(false)
        await store().recordSession(randomUUID(), userId, organizationId, later(SHORT_MS))
        await sleep(SHORT_MS + 200)
        expect(await store().endSessions(userId, organizationId)).toBe(0)
      })

      it("of 50 concurrent ends of five sessions, each session is counted once", async () => {
        const userId = randomUUID()
        const organizationId = randomUUID()
        for (let n = 0; n < 5; n++) await store().recordSession(randomUUID(), userId, organizationId, later())
        const counts = await Promise.all(Array.from({ length: 50 }, () => store().endSessions(userId, organizationId)))
        expect(counts.reduce((a, b) => a + b, 0)).toBe(5)
      })
    })
  })
}
