/**
 * The provider sends a signed-out browser to the app's own sign-in page (`pages.signIn`) when
 * it has one — not to core's built-in page the app replaced — with the way back to the parked
 * request and the `login_hint` to prefill.
 */
import { describe, expect, it } from "vitest"
import { ORIGIN, authorizeAs, testbed } from "./support.js"

describe("the sign-in page of an authorization request", () => {
  it("is the app's pages.signIn, with the callbackUrl back to the parked request and the login hint", async () => {
    const bed = testbed({ config: { pages: { signIn: "/login" } } })
    const bob = await bed.person("bob", { signedIn: false })
    const { response } = await authorizeAs(bob, { login_hint: "bob@example.com" })
    expect(response.status).toBe(302)
    const signIn = new URL(response.headers.get("location")!)
    expect(signIn.origin).toBe(ORIGIN)
    expect(signIn.pathname).toBe("/login")
    expect(signIn.searchParams.get("email")).toBe("bob@example.com")
    const back = signIn.searchParams.get("callbackUrl")!
    expect(back).toMatch(/^http:\/\/localhost:3000\/auth\/oidc\/authorize\/resume\?id=/)
    // The app's page signs in through core as usual; coming back finishes the request.
    const signedIn = await bob.browser.signIn({ email: bob.email }, back)
    expect(signedIn.headers.get("location")).toBe(back)
    const resumed = await bob.browser.request(back)
    expect(resumed.status).toBe(200)
    expect(await resumed.text()).toContain("Web App")
  })

  it("an absolute pages.signIn is kept as is; without a login hint no email is added", async () => {
    const bed = testbed({ config: { pages: { signIn: "https://accounts.example/sign-in?brand=x" } } })
    const bob = await bed.person("bob", { signedIn: false })
    const { response } = await authorizeAs(bob, {})
    const signIn = new URL(response.headers.get("location")!)
    expect(`${signIn.origin}${signIn.pathname}`).toBe("https://accounts.example/sign-in")
    expect(signIn.searchParams.get("brand")).toBe("x")
    expect(signIn.searchParams.has("email")).toBe(false)
    expect(signIn.searchParams.get("callbackUrl")).toMatch(/\/auth\/oidc\/authorize\/resume\?id=/)
  })
})
