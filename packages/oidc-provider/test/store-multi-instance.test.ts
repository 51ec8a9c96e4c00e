// Single use across instances: two Node processes, each with its own connection to one
// PostgreSQL or one Redis, race 25 + 25 redemptions of one authorization code, 25 + 25
// rotations of one refresh token, and 25 + 25 takes of one interaction; exactly one of the
// fifty wins each race, and a rotation race leaves the family revoked (a reuse among them).
import { randomUUID } from "node:crypto"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { askAll, describeSharedStores, startWorkers, type LineWorker, type SharedStoreOptions } from "@portcullis/adapter-test"
import type { OidcProviderStore } from "@portcullis/oidc-provider"
import { makeCode, makeGrant, makeRefreshToken } from "@portcullis/oidc-provider/testing"
import { openRedisStore, openSqlStore, postgresBackend, postgresGate, redisGate } from "./store-harness.js"

const worker = fileURLToPath(new URL("./fixtures/op-worker.ts", import.meta.url))

interface Shared {
  store: OidcProviderStore
  cleanup(): Promise<void>
  options: SharedStoreOptions
}

function multiInstanceSpec(label: string, open: () => Promise<Shared>) {
  describe(`two instances on one ${label}`, () => {
    let shared: Shared
    let workers: LineWorker[] = []
    beforeAll(async () => {
      shared = await open()
      // Both connected before either starts, so the calls overlap.
      workers = await startWorkers(worker, [shared.options, shared.options])
    }, 60_000)
    afterAll(async () => {
      for (const w of workers) w.stop()
      await shared?.cleanup()
    })

    /** Sends `command` to both workers at once; the fifty outcomes together. */
    async function race(command: string): Promise<unknown[]> {
      return (await askAll(workers, command)).flatMap((line) => JSON.parse(line) as unknown[])
    }

    it("of 2 × 25 concurrent redemptions of one code, exactly one is taken; the rest are replays", async () => {
      const grant = makeGrant()
      await shared.store.createGrant(grant)
      const code = makeCode(grant)
      await shared.store.saveCode(code)
      const outcomes = await race(`take ${code.codeHash} 25`)
      expect(outcomes).toHaveLength(50)
      expect(outcomes.filter((o) => o === "taken")).toHaveLength(1)
      expect(outcomes.filter((o) => o === "replayed")).toHaveLength(49)
      // And this instance, a third, sees a replay too.
      expect((await shared.store.takeCode(code.codeHash)).status).toBe("replayed")
    }, 60_000)

    it("of 2 × 25 concurrent rotations of one refresh token, exactly one rotates, and the reuse among them ends the family", async () => {
      const grant = makeGrant()
      await shared.store.createGrant(grant)
      const token = makeRefreshToken(grant)
      await shared.store.saveRefreshToken(token)
      const outcomes = (await race(`rotate ${token.tokenHash} ${grant.id} 25`)) as string[]
      expect(outcomes).toHaveLength(50)
      const rotated = outcomes.filter((o) => o.startsWith("rotated "))
      expect(rotated).toHaveLength(1)
      expect(outcomes.filter((o) => o === "reused").length).toBeGreaterThanOrEqual(1)
      expect(outcomes.filter((o) => o === "reused" || o === "missing")).toHaveLength(49)
      expect(await shared.store.getGrant(grant.id)).toBeNull()
      expect(await shared.store.getRefreshToken(rotated[0]!.split(" ")[1]!)).toBeNull()
    }, 60_000)

    it("of 2 × 25 concurrent takes of one interaction, exactly one gets it", async () => {
      const id = randomUUID()
      await shared.store.putInteraction(id, "parked request", new Date(Date.now() + 60_000))
      const outcomes = await race(`interaction ${id} 25`)
      expect(outcomes).toHaveLength(50)
      expect(outcomes.filter((o) => o === "parked request")).toHaveLength(1)
      expect(outcomes.filter((o) => o === null)).toHaveLength(49)
    }, 60_000)
  })
}

describeSharedStores({ postgres: postgresGate, redis: redisGate }, { postgres: () => openSqlStore(postgresBackend()), redis: openRedisStore }, multiInstanceSpec)
