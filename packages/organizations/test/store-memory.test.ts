import { describe, expect, it } from "vitest"
import { memoryOrganizationStore, makeInvitation, makeOrganization, runOrganizationStoreTests } from "@portcullis/organizations/testing"
import { MissingOrganization } from "../src/store/errors.js"

runOrganizationStoreTests("memory", async () => ({ store: memoryOrganizationStore(), close: async () => {} }))

describe("memoryOrganizationStore", () => {
  it("keeps each store's organizations to itself", async () => {
    const a = memoryOrganizationStore()
    const b = memoryOrganizationStore()
    const organization = makeOrganization()
    await a.createOrganization(organization, { organizationId: organization.id, userId: "u1", role: "owner", createdAt: new Date() })
    expect(await b.getOrganization(organization.id)).toBeNull()
    expect(await b.createOrganization(organization, { organizationId: organization.id, userId: "u1", role: "owner", createdAt: new Date() })).toBe(true)
  })

  it("rejects an invitation to an unknown organization with a typed error", async () => {
    const error = await memoryOrganizationStore().createInvitation(makeInvitation(makeOrganization())).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(MissingOrganization)
    expect((error as MissingOrganization).type).toBe("MissingOrganization")
  })
})
