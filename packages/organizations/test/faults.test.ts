// The store's connection dies in the middle of accepts: every call ends (most reject), and
// no accept is left half done — each invitation is either still pending with no membership,
// or accepted by its user with that user a member. Afterwards, accepting works again.
import { randomUUID } from "node:crypto"
import pg from "pg"
import type { Redis } from "ioredis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createPostgresKysely } from "@portcullis/sql-adapter"
import { migrateOrganizations, organizationTables, sqlOrganizationStore } from "@portcullis/organizations/sql"
import { redisOrganizationStore } from "@portcullis/organizations/redis"
import { makeInvitation, makeOrganization } from "@portcullis/organizations/testing"
import type { Invitation, Organization, OrganizationStore } from "../src/store/types.js"
import { connectRedis, deleteKeys, redisGate, testPrefix } from "./redis-harness.js"
import { dropSchema, postgres, postgresGate } from "./sql-harness.js"

const quiet = { error: () => {}, warn: () => {} }

/** An organization with `count` pending invitations, one per user. */
async function invitationsFor(store: OrganizationStore, count: number) {
  const organization = makeOrganization()
  await store.createOrganization(organization, { organizationId: organization.id, userId: randomUUID(), role: "owner", createdAt: new Date() })
  const invited: Array<{ invitation: Invitation; userId: string }> = []
  for (let n = 0; n < count; n++) {
    const invitation = makeInvitation(organization)
    await store.createInvitation(invitation)
    invited.push({ invitation, userId: randomUUID() })
  }
  return { organization, invited }
}

/** Every invitation all or nothing; returns how many were accepted. */
async function expectNoHalfAccepts(store: OrganizationStore, organization: Organization, invited: Array<{ invitation: Invitation; userId: string }>) {
  let accepted = 0
  for (const { invitation, userId } of invited) {
    const stored = await store.getInvitation(invitation.id)
    const membership = await store.getMembership(organization.id, userId)
    const listed = await store.listOrganizations(userId)
    if (stored?.status === "accepted") {
      accepted++
      expect(stored.acceptedBy).toBe(userId)
      expect(membership?.role).toBe("member")
      expect(listed.map((e) => e.organization.id)).toEqual([organization.id])
    } else {
      expect(stored?.status).toBe("pending")
      expect(membership).toBeNull()
      expect(listed).toEqual([])
    }
  }
  return accepted
}

postgresGate.describe("PostgreSQL: connections terminated inside accept transactions", () => {
  const applicationName = `pcorg-fault-${randomUUID().slice(0, 8)}`
  const tablePrefix = `pcf${randomUUID().slice(0, 8)}_`
  const url = new URL(postgres.url)
  url.searchParams.set("application_name", applicationName)
  const db = createPostgresKysely(url.href, { pool: { logger: quiet, connectTimeoutMs: 30_000, queryTimeoutMs: 30_000 } })
  const monitor = new pg.Client({ connectionString: postgres.url })
  const locker = new pg.Client({ connectionString: postgres.url })
  beforeAll(async () => {
    await migrateOrganizations(db, { tablePrefix })
    await monitor.connect()
    await locker.connect()
  })
  afterAll(async () => {
    await locker.end()
    await monitor.end()
    await dropSchema(db, tablePrefix)
  })

  it("rejects every call, leaves every invitation pending without a member, and accepts again afterwards", async () => {
    const store = sqlOrganizationStore(db, { tablePrefix })
    const { organization, invited } = await invitationsFor(store, 8)
    // Holds the members table: each accept marks its invitation, then waits to add the member.
    await locker.query("begin")
    await locker.query(`lock table ${organizationTables(tablePrefix).members} in exclusive mode`)
    const calls = invited.map(({ invitation, userId }) => store.acceptInvitation(invitation.id, userId, new Date()).then(
      (outcome) => ({ outcome }),
      (error: Error) => ({ error }),
    ))
    try {
      // Wait (bounded) until all 8 sit inside their transactions, blocked on the member insert.
      const waiting = async () => Number((await monitor.query(
        "select count(*) as n from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock' and query ilike 'insert into%'", [applicationName])).rows[0].n)
      for (let polls = 0; (await waiting()) < invited.length; polls++) {
        if (polls > 400) throw new Error("the accepts never reached the member insert")
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      await monitor.query("select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1", [applicationName])
      const settled = await Promise.all(calls)
      expect(settled.filter((s) => "error" in s)).toHaveLength(invited.length)
    } finally {
      await locker.query("rollback")
    }
    expect(await expectNoHalfAccepts(store, organization, invited)).toBe(0)
    // The pool replaced its connections: the same store accepts again.
    const [first] = invited
    expect(await store.acceptInvitation(first!.invitation.id, first!.userId, new Date())).toBe("accepted")
    expect(await expectNoHalfAccepts(store, organization, invited)).toBe(1)
  }, 60_000)
})

redisGate.describe("Redis: the connection closed while accepts are in flight", () => {
  const prefix = testPrefix()
  let admin: Redis
  beforeAll(async () => {
    admin = connectRedis()
    await admin.connect()
  })
  afterAll(async () => {
    await deleteKeys(admin, prefix)
    await admin.quit()
  })

  it("ends every call, leaves each invitation all or nothing, and accepts again on a new connection", async () => {
    const setup = redisOrganizationStore(admin, { prefix })
    const { organization, invited } = await invitationsFor(setup, 20)
    const client = connectRedis()
    await client.connect()
    // The fault, placed in the sequence: the connection closes just after the 10th accept
    // script is sent. Scripts sent before may have run (their answers are lost); every
    // command after fails on the closed connection.
    let scripts = 0
    const faulty = new Proxy(client, {
      get(target, property) {
        const value = Reflect.get(target, property, target) as unknown
        if (property === "evalsha") {
          return (...args: unknown[]) => {
            const sent = (target.evalsha as (...a: unknown[]) => Promise<unknown>)(...args)
            // Destroyed, not `disconnect()`ed: that half-closes and still reads the answers.
            if (++scripts === 10) target.stream.destroy()
            return sent
          }
        }
        return typeof value === "function" ? value.bind(target) : value
      },
    })
    const store = redisOrganizationStore(faulty, { prefix })
    const settled = await Promise.all(invited.map(({ invitation, userId }) => store.acceptInvitation(invitation.id, userId, new Date()).then(
      (outcome) => ({ outcome }),
      (error: Error) => ({ error }),
    )))
    expect(scripts).toBeGreaterThanOrEqual(10)
    // The 10th script's answer and every later call's commands cannot arrive: at least 11 reject.
    expect(settled.filter((s) => "error" in s).length).toBeGreaterThanOrEqual(11)
    for (const [n, s] of settled.entries()) {
      if ("outcome" in s) {
        expect(s.outcome).toBe("accepted")
        expect(await setup.getMembership(organization.id, invited[n]!.userId)).not.toBeNull()
      }
    }
    const accepted = await expectNoHalfAccepts(setup, organization, invited)
    expect(accepted).toBeLessThanOrEqual(10)
    const stillPending = []
    for (const entry of invited) if ((await setup.getInvitation(entry.invitation.id))?.status === "pending") stillPending.push(entry)
    expect(stillPending.length).toBeGreaterThanOrEqual(10)
    expect(await setup.acceptInvitation(stillPending[0]!.invitation.id, stillPending[0]!.userId, new Date())).toBe("accepted")
    expect(await expectNoHalfAccepts(setup, organization, invited)).toBe(accepted + 1)
    client.disconnect()
  }, 60_000)
})
