/**
 * Issue 28, recovery: `resetTwoFactor` removes a user's second factor and is meant for the
 * app's support staff only — a server function, no route. Mallory has Ada's password (the
 * first factor) and wants the second factor gone: he looks for any HTTP way to the reset, or
 * to the enrollment changes, without a code. Over a real HTTP server (the step-up app).
 */
import { afterEach, describe, expect, it } from "vitest"
import { act, ada, signIn, stepUpApp, type StepUpApp } from "../../step-up/app.js"
import { previousStepCode } from "../../two-factor/previous-step.js"

let app: StepUpApp | undefined
afterEach(async () => {
  await app?.close()
  app = undefined
})

/** Ada with two-factor authentication on; her TOTP secret. */
async function adaWithTwoFactor() {
  app = await stepUpApp({ session: { strategy: "database" } })
  const owner = app.browser()
  await signIn(owner)
  const { secret } = (await act(owner, "/account/2fa/start")).body
  expect((await act(owner, "/account/2fa/confirm", { code: await previousStepCode(secret) })).status).toBe(200)
  return { secret }
}

describe("Mallory, with Ada's password only, looks for an HTTP way to reset her second factor", () => {
  it("no path under the auth routes reaches the reset or a disable without a code, signed out or mid-challenge", async () => {
    await adaWithTwoFactor()
    const mallory = app!.browser()
    // The first factor: he gets the challenge, not a session.
    const first = await signIn(mallory)
    expect(new URL(first.headers.get("location")!).pathname).toBe("/auth/two-factor")
    const fields = { userId: app!.userId, reason: "lost my phone", actor: "self", code: "", action: "reset" }
    const paths = [
      "/auth/two-factor",
      "/auth/two-factor/reset",
      "/auth/two-factor/disable",
      "/auth/two-factor?action=reset",
      "/auth/password/reset-two-factor",
      "/auth/password/two-factor",
      "/auth/reauthenticate?action=reset-two-factor",
      "/auth/callback/two-factor",
      "/auth/signin/two-factor",
    ]
    for (const path of paths) {
      const csrfToken = await mallory.csrfToken()
      await mallory.request(path, { form: { ...fields, csrfToken } })
      await mallory.request(path, { json: { ...fields, csrfToken } })
    }
    const record = await app!.adapter.getTwoFactor!(app!.userId)
    expect(record).toMatchObject({ enabled: true })
    expect(record!.backupCodes).toHaveLength(10)
    expect(await mallory.session()).toBeNull()
  })

  it("the app's own settings routes, with his fresh-looking sign-in, still ask for a code he has not got", async () => {
    await adaWithTwoFactor()
    const mallory = app!.browser()
    await signIn(mallory)
    // The challenge cookie is no session: the settings routes see nobody signed in.
    expect((await act(mallory, "/account/2fa/disable", { code: "" })).status).toBe(401)
    expect((await act(mallory, "/account/2fa/regenerate", { code: "000000" })).status).toBe(401)
    expect(await app!.adapter.getTwoFactor!(app!.userId)).toMatchObject({ enabled: true })
  })
})
