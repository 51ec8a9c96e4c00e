/**
 * Attacks, class 6: faults and concurrency. The store fails or hangs at each step of an
 * invitation — no half state is left (an invitation pending with a membership, a mailed
 * link the store lacks) and the caller gets 503, never a hang or a driver's message; and 50
 * concurrent creates of one slug make one organization on every store.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { memoryOrganizationStore } from "@portcullis/organizations/memory"
import type { OrganizationStore } from "@portcullis/organizations"
import { team, testbed } from "../support.js"
import { openSqlStore, postgresBackend, postgresGate, sqliteBackend } from "../sql-harness.js"
import { openRedisStore, redisGate } from "../redis-harness.js"

type Method = keyof OrganizationStore

/** A memory store where `failing` methods throw (with a secret in the message) and `hanging` ones never answer. */
function faultyStore() {
  const inner = memoryOrganizationStore()
  const failing = new Set<Method>()
  const hanging = new Set<Method>()
  const store = Object.fromEntries(
    (Object.keys(inner) as Method[]).map((name) => [
      name,
      (...args: unknown[]) => {
        if (failing.has(name)) return Promise.reject(new Error(`connect ECONNREFUSED 10.0.0.9:5432 password=s3cret (${name})`))
        if (hanging.has(name)) return new Promise(() => {})
        return (inner[name] as (...a: unknown[]) => unknown)(...args)
      },
    ]),
  ) as unknown as OrganizationStore
  return { store, inner, failing, hanging }
}

describe("the store failing at each step of an invitation", () => {
  it.each(["createInvitation", "getOrganization", "listMembers"] as const)("before the mail (%s): 503, nothing mailed, nothing pending", async (step) => {
    const faulty = faultyStore()
    const bed = testbed({ store: faulty.store })
    const { id, owner } = await team(bed)
    const mailed = bed.mail.sent.length
    faulty.failing.add(step)
    const answer = await owner.post(`${id}/invitations`, { email: "zoe@example.com" })
    faulty.failing.clear()
    expect(answer.status).toBe(503)
    expect(JSON.stringify(answer.body)).not.toMatch(/s3cret|ECONNREFUSED|10\.0\.0\.9/)
    expect(bed.mail.sent.length).toBe(mailed)
    expect(await faulty.inner.listInvitations(id, new Date())).toEqual([])
  })

  it.each(["getInvitation", "getMembership", "acceptInvitation"] as const)("while accepting (%s): 503, and the invitation all or nothing, usable after", async (step) => {
    const faulty = faultyStore()
    const bed = testbed({ store: faulty.store })
    const { id, owner } = await team(bed)
    await owner.post(`${id}/invitations`, { email: "zoe@example.com" })
    const { id: invitationId, token } = bed.invitationFor("zoe@example.com")
    const zoe = await bed.person("zoe")
    faulty.failing.add(step)
    const answer = await zoe.post(`invitations/${invitationId}/accept`, { token })
    faulty.failing.clear()
    expect(answer.status).toBe(503)
    expect(JSON.stringify(answer.body)).not.toMatch(/s3cret|ECONNREFUSED/)
    expect((await faulty.inner.getInvitation(invitationId))?.status).toBe("pending")
    expect(await faulty.inner.getMembership(id, zoe.id)).toBeNull()
    expect((await zoe.post(`invitations/${invitationId}/accept`, { token })).status).toBe(200)
    expect((await faulty.inner.getMembership(id, zoe.id))?.role).toBe("member")
  })

  it("after the accept (setting the active organization): the join stands and is answered, not a 503 a retry can't repeat", async () => {
    const faulty = faultyStore()
    const bed = testbed({ store: faulty.store })
    const { id, owner } = await team(bed)
    await owner.post(`${id}/invitations`, { email: "zoe@example.com" })
    const { id: invitationId, token } = bed.invitationFor("zoe@example.com")
    const zoe = await bed.person("zoe")
    faulty.failing.add("setActiveOrganization")
    const answer = await zoe.post(`invitations/${invitationId}/accept`, { token })
    faulty.failing.clear()
    // The join was made (the invitation is used up): its answer says so; only "active" is missing.
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({ organization: { id, role: "member" } })
    expect((await faulty.inner.getInvitation(invitationId))?.status).toBe("accepted")
    expect((await faulty.inner.getMembership(id, zoe.id))?.role).toBe("member")
    expect((await zoe.post("active", { organizationId: id })).status).toBe(200)
  })

  it("logs the store's outage once, with the chain, and never the token", async () => {
    const faulty = faultyStore()
    const bed = testbed({ store: faulty.store })
    const { id, owner } = await team(bed)
    await owner.post(`${id}/invitations`, { email: "zoe@example.com" })
    const { id: invitationId, token } = bed.invitationFor("zoe@example.com")
    const zoe = await bed.person("zoe")
    faulty.failing.add("getInvitation")
    for (let i = 0; i < 5; i++) expect((await zoe.post(`invitations/${invitationId}/accept`, { token })).status).toBe(503)
    faulty.failing.clear()
    const secretLines = bed.log.lines.filter((l) => l.includes("s3cret"))
    expect(secretLines.length).toBe(1)
    expect(bed.log.lines.join("\n")).not.toContain(token)
  })
})

describe("a store that hangs", () => {
  it("answers 503 within adapterTimeout instead of holding the request", async () => {
    const faulty = faultyStore()
    const bed = testbed({ store: faulty.store, config: { adapterTimeout: 100 } })
    const { id, owner } = await team(bed)
    faulty.hanging.add("getMembership")
    const answers = await Promise.all([owner.get(id), owner.post(`${id}/invitations`, { email: "zoe@example.com" }), owner.post(`${id}/members/${owner.id}/role`, { role: "owner" })])
    faulty.hanging.clear()
    expect(answers.map((a) => a.status)).toEqual([503, 503, 503])
    expect(answers[0]!.response.headers.get("retry-after")).toBe("5")
    expect((await owner.get(id)).status).toBe(200)
  })

  it("answers the session with 503, not a signed-out session, when the active organization can't be read", async () => {
    const faulty = faultyStore()
    const bed = testbed({ store: faulty.store, config: { adapterTimeout: 100 } })
    const { owner } = await team(bed)
    faulty.hanging.add("getActiveOrganization")
    const response = await owner.browser.request("/auth/session")
    faulty.hanging.clear()
    expect(response.status).toBe(503)
    expect(owner.browser.sessionCookie()).toBeDefined()
  })
})

/** 50 creates of one slug at once, by different people: exactly one organization has it. */
async function fiftyCreates(store: OrganizationStore) {
  const bed = testbed({ store })
  const people = await Promise.all(Array.from({ length: 5 }, (_, i) => bed.person(`p${i}-${Math.random().toString(36).slice(2, 8)}`)))
  const slug = `race-${Math.random().toString(36).slice(2, 10)}`
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => people[i % 5]!.post("", { name: `Race ${i}`, slug })))
  const statuses = answers.map((a) => a.status)
  expect(statuses.filter((s) => s === 201)).toHaveLength(1)
  expect(statuses.filter((s) => s === 409)).toHaveLength(49)
  expect(answers.filter((a) => a.status === 409).every((a) => a.body.error === "slug-taken")).toBe(true)
  const winner = answers.find((a) => a.status === 201)!.body.organization
  expect(await bed.store.getOrganizationBySlug(slug)).toMatchObject({ id: winner.id })
  // The losers were not left owning a half-made organization.
  for (const person of people) expect((await person.get("")).body.organizations.filter((o: { slug: string }) => o.slug === slug).length).toBeLessThanOrEqual(1)
}

describe("50 concurrent creates with one slug", () => {
  it("make one organization on the memory store", async () => {
    await fiftyCreates(memoryOrganizationStore())
  })

  describe("on SQLite", () => {
    let harness: Awaited<ReturnType<typeof openSqlStore>>
    beforeAll(async () => void (harness = await openSqlStore(sqliteBackend())))
    afterAll(async () => harness?.close())
    it("make one organization", async () => fiftyCreates(harness.store))
  })

  postgresGate.describe("on PostgreSQL", () => {
    let harness: Awaited<ReturnType<typeof openSqlStore>>
    beforeAll(async () => void (harness = await openSqlStore(postgresBackend())))
    afterAll(async () => harness?.close())
    it("make one organization", async () => fiftyCreates(harness.store))
  })

  redisGate.describe("on Redis", () => {
    let harness: Awaited<ReturnType<typeof openRedisStore>>
    beforeAll(async () => void (harness = await openRedisStore()))
    afterAll(async () => harness?.close())
    it("make one organization", async () => fiftyCreates(harness.store))
  })
})
