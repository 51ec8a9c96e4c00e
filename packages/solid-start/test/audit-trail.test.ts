/** Issue 29: `auditTrail` and `pruneAuditTrail` are re-exported as core's server functions (docs/observability.md, "Storing the audit trail"). */
import { describe, expect, it } from "vitest"
import { auditTrail, pruneAuditTrail, InvalidAuditQuery } from "@portcullis/solid-start"
import { auditTrail as coreAuditTrail, pruneAuditTrail as corePruneAuditTrail } from "@portcullis/core/integration"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { credentialsConfig } from "../../core/test/helpers.js"

describe("auditTrail from @portcullis/solid-start", () => {
  it("is core's auditTrail(), and refuses a malformed query", async () => {
    expect(auditTrail).toBe(coreAuditTrail)
    expect(pruneAuditTrail).toBe(corePruneAuditTrail)
    const config = credentialsConfig({ adapter: MemoryAdapter() })
    expect(await auditTrail(config)).toEqual({ records: [] })
    await expect(auditTrail(config, { limit: 0 })).rejects.toBeInstanceOf(InvalidAuditQuery)
  })
})
