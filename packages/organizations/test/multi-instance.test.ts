// Single use across instances (STYLE.md §20): two Node processes, each with its own
// connection to one PostgreSQL or one Redis, accept the same invitation 25 times each at
// once; exactly one membership results.
import { randomUUID } from "node:crypto"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { OrganizationStore } from "../src/store/types.js"
import { makeInvitation, makeOrganization } from "@portcullis/organizations/testing"
import { askAll, describeSharedStores, startWorkers, type SharedStoreOptions } from "@portcullis/adapter-test"
import { openRedisStore, redisGate } from "./redis-harness.js"
import { openSqlStore, postgresBackend, postgresGate } from "./sql-harness.js"

const worker = fileURLToPath(new URL("./fixtures/accept-worker.ts", import.meta.url))

async function acceptFromTwoProcesses(store: OrganizationStore, options: SharedStoreOptions) {
  const organization = makeOrganization()
  await store.createOrganization(organization, { organizationId: organization.id, userId: randomUUID(), role: "owner", createdAt: new Date() })
  const invitation = makeInvitation(organization)
  await store.createInvitation(invitation)
  // Both connected before either starts, so the 50 accepts overlap.
  const workers = await startWorkers(worker, ["a", "b"].map((name) => ({
    ...options, invitationId: invitation.id, count: 25, userPrefix: `${name}-${randomUUID()}-`,
  })))
  try {
    const outcomes = (await askAll(workers, "go")).flatMap((line) => JSON.parse(line) as string[])
    return { organization, invitation, outcomes }
  } finally {
    for (const w of workers) w.stop()
  }
}

function multiInstanceSpec(label: string, open: () => Promise<{ store: OrganizationStore; close(): Promise<void>; options: SharedStoreOptions }>) {
  describe(`two instances on one ${label}`, () => {
    let harness: Awaited<ReturnType<typeof open>>
    beforeAll(async () => {
      harness = await open()
    })
    afterAll(() => harness?.close())

    it("of 2 × 25 concurrent accepts of one invitation, exactly one joins", async () => {
      const { organization, invitation, outcomes } = await acceptFromTwoProcesses(harness.store, harness.options)
      expect(outcomes).toHaveLength(50)
      expect(outcomes.filter((o) => o === "accepted")).toHaveLength(1)
      expect(outcomes.filter((o) => o === "unavailable")).toHaveLength(49)
      const members = await harness.store.listMembers(organization.id)
      expect(members).toHaveLength(2)
      const joined = members.find((m) => m.role === "member")!
      expect((await harness.store.getInvitation(invitation.id))?.acceptedBy).toBe(joined.userId)
    }, 60_000)
  })
}

describeSharedStores({ postgres: postgresGate, redis: redisGate }, { postgres: () => openSqlStore(postgresBackend()), redis: openRedisStore }, multiInstanceSpec)
