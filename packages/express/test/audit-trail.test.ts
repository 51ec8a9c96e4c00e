/** Issue 29: Express's `auditTrail(config, query)` and `pruneAuditTrail(config)` read and prune core's stored trail. */
import { describe, expect, it } from "vitest"
import { auditTrail, pruneAuditTrail, AuditTrailUnsupported } from "@portcullis/express"
import type { AuditEvent } from "@portcullis/express"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { credentialsConfig } from "../../core/test/helpers.js"

describe("auditTrail from @portcullis/express", () => {
  it("reads the adapter's trail by user, and says when there is none", async () => {
    const adapter = MemoryAdapter()
    const config = credentialsConfig({ adapter })
    const record = { id: crypto.randomUUID(), time: new Date().toISOString(), type: "signOut", outcome: "success", userId: "u1" } as AuditEvent
    await adapter.createAuditRecord!(record)
    expect(await auditTrail(config, { userId: "u1" })).toEqual({ records: [record] })
    expect(await pruneAuditTrail(config)).toEqual({ deleted: 0 })
    await expect(auditTrail(credentialsConfig())).rejects.toBeInstanceOf(AuditTrailUnsupported)
  })
})
