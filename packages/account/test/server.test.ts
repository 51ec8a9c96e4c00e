/**
 * The server functions (`extensions.account.*`), bound to a person's request as an
 * integration binds them: they act on that person only, audit as the routes do, hold the
 * step-up, and refuse a change another site sent.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { extensionFunctions } from "@portcullis/core/integration"
import type { AccountServer } from "@portcullis/account"
import { later, plantPasskey, testbed, type Actor, type Testbed } from "./support.js"

afterEach(() => vi.useRealTimers())

async function serverOf(bed: Testbed, actor: Actor, headers: Record<string, string> = {}): Promise<AccountServer> {
  const csrfToken = await actor.browser.csrfToken()
  const functions = (await extensionFunctions({ origin: actor.browser.origin, method: "POST", csrfToken, headers: new Headers({ cookie: actor.browser.cookieHeader(), ...headers }) }, bed.config)) as Record<string, unknown>
  return functions.account as AccountServer
}

describe("the server functions", () => {
  it("act on the request's own user and audit each action", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const server = await serverOf(bed, ada)
    await server.updateProfile({ name: "Ada" })
    await server.requestEmailChange("countess@example.com")
    const link = bed.linkFor("countess@example.com")
    expect(await server.confirmEmailChange(link.email, link.token)).toBe(true)
    expect(await server.confirmEmailChange(link.email, link.token)).toBe(false)
    expect((await server.state()).user).toMatchObject({ name: "Ada", email: "countess@example.com" })
    expect(bed.events()).toEqual(["profileUpdated/success", "emailChangeRequested/success", "emailChanged/success", "emailChanged/success"])
  })

  it("hold the step-up for the sensitive ones, and refuse another user's passkey", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const mallory = await bed.person("mallory")
    await plantPasskey(bed.adapter, ada.id, "ada-key")
    await expect((await serverOf(bed, mallory)).removePasskey("ada-key")).rejects.toMatchObject({ code: "not-found" })
    later(11 * 60_000)
    const stale = await serverOf(bed, ada)
    await expect(stale.deleteAccount()).rejects.toMatchObject({ type: "StepUpRequired" })
    await expect(stale.removePasskey("ada-key")).rejects.toMatchObject({ type: "StepUpRequired" })
    expect(await bed.adapter.getAuthenticator!("ada-key")).not.toBeNull()
    expect(await bed.adapter.getUser!(ada.id)).not.toBeNull()
    expect(bed.events()).toContain("passkeyRemoved/failure")
  })

  it("refuse a change another site sent", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await expect(serverOf(bed, ada, { origin: "https://evil.example", "sec-fetch-site": "cross-site" })).rejects.toMatchObject({ type: "MissingCSRF" })
  })
})
