// Single use across instances (STYLE.md §20): two Node processes, each with its own
// connection to one PostgreSQL or one Redis, accept the same invitation 25 times each at
// once; exactly one membership results.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process"
import { randomUUID } from "node:crypto"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { OrganizationStore } from "../src/store/types.js"
import { makeInvitation, makeOrganization } from "@portcullis/organizations/testing"
import { openRedisStore, redis, redisGate } from "./redis-harness.js"
import { openSqlStore, postgres, postgresBackend, postgresGate } from "./sql-harness.js"

const worker = fileURLToPath(new URL("./fixtures/accept-worker.ts", import.meta.url))

/** Resolves with the next line the process prints; rejects if it exits first. */
function nextLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = ""
    let stderr = ""
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString()
      const end = buffered.indexOf("\n")
      if (end < 0) return
      child.stdout.off("data", onData)
      child.off("exit", onExit)
      resolve(buffered.slice(0, end))
    }
    const onErr = (chunk: Buffer) => void (stderr += chunk.toString())
    const onExit = (code: number | null) => reject(new Error(`worker exited (${code}) before answering: ${stderr}`))
    child.stdout.on("data", onData)
    child.stderr.on("data", onErr)
    child.once("exit", onExit)
  })
}

async function acceptFromTwoProcesses(store: OrganizationStore, options: { backend: "postgres" | "redis"; url: string; prefix: string }) {
  const organization = makeOrganization()
  await store.createOrganization(organization, { organizationId: organization.id, userId: randomUUID(), role: "owner", createdAt: new Date() })
  const invitation = makeInvitation(organization)
  await store.createInvitation(invitation)
  const children = ["a", "b"].map((name) => spawn(process.execPath, ["--no-warnings", worker, JSON.stringify({
    ...options, invitationId: invitation.id, count: 25, userPrefix: `${name}-${randomUUID()}-`,
  })], { stdio: ["pipe", "pipe", "pipe"] }))
  try {
    // Both connected before either starts, so the 50 accepts overlap.
    expect(await Promise.all(children.map(nextLine))).toEqual(["ready", "ready"])
    const answers = children.map(nextLine)
    for (const child of children) child.stdin.write("go\n")
    const outcomes = (await Promise.all(answers)).flatMap((line) => JSON.parse(line) as string[])
    return { organization, invitation, outcomes }
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill()
  }
}

function multiInstanceSpec(label: string, open: () => Promise<{ store: OrganizationStore; close(): Promise<void>; options: { backend: "postgres" | "redis"; url: string; prefix: string } }>) {
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

postgresGate.describe("PostgreSQL", () => {
  multiInstanceSpec("PostgreSQL", async () => {
    const harness = await openSqlStore(postgresBackend())
    return { ...harness, options: { backend: "postgres" as const, url: postgres.url, prefix: harness.tablePrefix } }
  })
})

redisGate.describe("Redis", () => {
  multiInstanceSpec("Redis", async () => {
    const harness = await openRedisStore()
    return { ...harness, options: { backend: "redis" as const, url: redis.url, prefix: harness.prefix } }
  })
})
