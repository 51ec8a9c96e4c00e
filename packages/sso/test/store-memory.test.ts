import { randomUUID } from "node:crypto"
import { describe, expect, it } from "vitest"
import { memorySsoStore } from "@portcullis/sso/memory"
import { makeConnection, ssoStoreConformance } from "@portcullis/sso/testing"

ssoStoreConformance("memorySsoStore", async () => ({ store: memorySsoStore(), cleanup: async () => {} }))

describe("memorySsoStore", () => {
  it("keeps each store's records to itself", async () => {
    const a = memorySsoStore()
    const b = memorySsoStore()
    const connection = makeConnection()
    await a.createConnection(connection)
    expect(await b.getConnection(connection.id)).toBeNull()
    const id = randomUUID()
    expect(await a.useOnce("assertion", id, new Date(Date.now() + 60_000))).toBe(true)
    expect(await b.useOnce("assertion", id, new Date(Date.now() + 60_000))).toBe(true)
  })
})
