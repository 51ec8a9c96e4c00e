// Single use across instances: two Node processes, each with its own connection to one
// PostgreSQL or one Redis, race 25 + 25 uses of one SAML assertion ID, 25 + 25 takes of one
// pending request, and 25 + 25 organizations verifying one domain; exactly one of the fifty
// wins each race.
import { randomUUID } from "node:crypto"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { askAll, describeSharedStores, startWorkers, type LineWorker, type SharedStoreOptions } from "@portcullis/adapter-test"
import type { SsoStore } from "@portcullis/sso"
import { openRedisStore, redisGate } from "./redis-harness.js"
import { openSqlStore, postgresBackend, postgresGate } from "./sql-harness.js"

const worker = fileURLToPath(new URL("./fixtures/sso-worker.ts", import.meta.url))

interface Shared {
  store: SsoStore
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

    it("of 2 × 25 concurrent uses of one assertion ID, exactly one is first", async () => {
      const id = `_${randomUUID()}`
      const outcomes = await race(`useOnce saml-assertion ${id} 25`)
      expect(outcomes).toHaveLength(50)
      expect(outcomes.filter((o) => o === true)).toHaveLength(1)
      expect(outcomes.filter((o) => o === false)).toHaveLength(49)
      // And this instance, a third, is refused too.
      expect(await shared.store.useOnce("saml-assertion", id, new Date(Date.now() + 60_000))).toBe(false)
    }, 60_000)

    it("of 2 × 25 concurrent takes of one pending request, exactly one gets it", async () => {
      const id = `_${randomUUID()}`
      await shared.store.put("saml-request", id, "relay:/dashboard", new Date(Date.now() + 60_000))
      const outcomes = await race(`take saml-request ${id} 25`)
      expect(outcomes).toHaveLength(50)
      expect(outcomes.filter((o) => o === "relay:/dashboard")).toHaveLength(1)
      expect(outcomes.filter((o) => o === null)).toHaveLength(49)
      expect(await shared.store.take("saml-request", id)).toBeNull()
    }, 60_000)

    it("of 2 × 25 organizations claiming and verifying one domain at once, exactly one holds it", async () => {
      const domain = `race-${randomUUID().slice(0, 8)}.example`
      const outcomes = (await race(`verify ${domain} 25`)) as string[]
      expect(outcomes).toHaveLength(50)
      const verified = outcomes.filter((o) => o.startsWith("verified "))
      expect(verified).toHaveLength(1)
      expect(outcomes.filter((o) => o.startsWith("taken "))).toHaveLength(49)
      expect((await shared.store.getDomain(domain))?.organizationId).toBe(verified[0]!.split(" ")[1])
    }, 60_000)
  })
}

describeSharedStores({ postgres: postgresGate, redis: redisGate }, { postgres: () => openSqlStore(postgresBackend()), redis: openRedisStore }, multiInstanceSpec)
