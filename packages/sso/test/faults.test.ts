// A store whose driver fails — a closed pool, a database or Redis that does not answer —
// rejects every call. It never resolves with an answer it did not get from the backend: a
// `useOnce` that could not record must not say "first", a `take` must not say "absent".
import { describe, expect, it } from "vitest"
import type { SsoStore } from "@portcullis/sso"
import { createPostgresKysely } from "@portcullis/sql-adapter"
import { redisSsoStore } from "@portcullis/sso/redis"
import { sqlSsoStore } from "@portcullis/sso/sql"
import { makeConnection, makeDomain, makeScimGroup, makeScimUser } from "@portcullis/sso/testing"
import { connectRedis } from "./redis-harness.js"
import { openSqlStore, postgresBackend, postgresGate, sqliteBackend } from "./sql-harness.js"

const later = () => new Date(Date.now() + 60_000)

/** One call of every method, by name. */
function everyCall(store: SsoStore): Array<[string, () => Promise<unknown>]> {
  const user = makeScimUser("org")
  const group = makeScimGroup("org")
  return [
    ["useOnce", () => store.useOnce("assertion", "a1", later())],
    ["put", () => store.put("request", "r1", "v", later())],
    ["take", () => store.take("request", "r1")],
    ["claimDomain", () => store.claimDomain(makeDomain())],
    ["verifyDomain", () => store.verifyDomain("acme.com", "org", new Date())],
    ["getDomain", () => store.getDomain("acme.com")],
    ["updateDomain", () => store.updateDomain("acme.com", "org", { requireSso: true })],
    ["createConnection", () => store.createConnection(makeConnection())],
    ["getConnection", () => store.getConnection("c1")],
    ["updateConnection", () => store.updateConnection(makeConnection())],
    ["findScimToken", () => store.findScimToken("0".repeat(64))],
    ["createScimUser", () => store.createScimUser(user)],
    ["updateScimUser", () => store.updateScimUser(user, 1)],
    ["deleteScimUser", () => store.deleteScimUser("org", user.id)],
    ["createScimGroup", () => store.createScimGroup(group)],
    ["recordSession", () => store.recordSession("s1", "u1", "org", later())],
    ["endSessions", () => store.endSessions("u1", "org")],
    ["sessionEnded", () => store.sessionEnded("s1")],
  ]
}

function rejectsEverything(label: string, open: () => Promise<{ store: SsoStore; close(): Promise<unknown> }>) {
  describe(label, () => {
    it("rejects every call, and resolves none", async () => {
      const { store, close } = await open()
      try {
        const settled = await Promise.all(everyCall(store).map(async ([name, call]) => {
          try {
            return { name, resolved: await call() }
          } catch (error) {
            return { name, error }
          }
        }))
        expect(settled.filter((s) => "resolved" in s).map((s) => s.name)).toEqual([])
        for (const outcome of settled) expect((outcome as { error: unknown }).error).toBeInstanceOf(Error)
      } finally {
        await close()
      }
    }, 60_000)
  })
}

describe("a failing driver", () => {
  rejectsEverything("SQLite: a Kysely instance already destroyed", async () => {
    const harness = await openSqlStore(sqliteBackend())
    await harness.db.destroy()
    return { store: harness.store, close: async () => {} }
  })

  postgresGate.describe("PostgreSQL", () => {
    rejectsEverything("PostgreSQL: a closed pool", async () => {
      const harness = await openSqlStore(postgresBackend())
      const store = harness.store
      // The schema goes with the pool; the store keeps its reference to the closed one.
      await harness.cleanup()
      return { store, close: async () => {} }
    })
  })

  rejectsEverything("PostgreSQL: nothing listening on the port", async () => {
    const db = createPostgresKysely("postgres://postgres@127.0.0.1:1/test", { pool: { connectTimeoutMs: 1_000 } })
    return { store: sqlSsoStore(db), close: () => db.destroy() }
  })

  rejectsEverything("Redis: a client pointed at a dead port", async () => {
    const client = connectRedis("redis://127.0.0.1:1")
    return { store: redisSsoStore(client, { prefix: "dead:" }), close: async () => client.disconnect() }
  })
})
