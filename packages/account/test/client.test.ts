/**
 * The browser client over the real routes: its calls change what the page would, a refusal
 * is an AccountClientError with the route's code, and a stale step-up carries the
 * re-authentication URL back to the current page.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { totpCode } from "@portcullis/core/two-factor"
import { AccountClientError, accountClient } from "@portcullis/account/client"
import { later, plantPasskey, testbed, type Actor } from "./support.js"

afterEach(() => vi.useRealTimers())

function clientOf(actor: Actor) {
  return accountClient({
    basePath: "/auth",
    fetch: ((input: RequestInfo | URL, init?: RequestInit) => actor.browser.request(String(input), init ?? {})) as typeof fetch,
    returnTo: () => "http://localhost:3000/settings",
  })
}

describe("the account client", () => {
  it("reads the state and acts through the routes", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await plantPasskey(bed.adapter, ada.id, "k1")
    const client = clientOf(ada)
    await client.updateProfile({ name: "Ada" })
    await client.renamePasskey("k1", "Phone")
    const enrollment = await client.startTwoFactor()
    const { backupCodes } = await client.confirmTwoFactor(totpCode(enrollment.manualKey.replaceAll(" ", "")))
    const state = await client.state()
    expect(state.user.name).toBe("Ada")
    expect(state.passkeys[0]!.name).toBe("Phone")
    expect(backupCodes).toHaveLength(10)
    expect(state.twoFactor.enabled).toBe(true)
  })

  it("throws the route's code, and the re-authentication URL for a stale step-up", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const client = clientOf(ada)
    await expect(client.updateProfile({ image: "http://insecure.example/a.png" })).rejects.toMatchObject({ code: "invalid-image", status: 422 })
    later(11 * 60_000)
    const refused = await client.revokeOtherSessions().catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(AccountClientError)
    expect(refused).toMatchObject({ code: "StepUpRequired", status: 403, reauthenticateUrl: "/auth/reauthenticate?callbackUrl=http%3A%2F%2Flocalhost%3A3000%2Fsettings" })
  })
})
