/** Issue 29: `health` is re-exported as core's server function (docs/observability.md, "Health checks"). */
import { describe, expect, it } from "vitest"
import { health } from "@portcullis/solid-start"
import { health as coreHealth } from "@portcullis/core/integration"
import { outageFixture } from "../../core/test/outage-fixture.js"

describe("health from @portcullis/solid-start", () => {
  it("is core's health(), and reports the store", async () => {
    expect(health).toBe(coreHealth)
    const store = outageFixture()
    expect(await health(store.config())).toMatchObject({ status: "ok", checks: { adapter: { status: "ok" } } })
  })
})
