/**
 * A session whose first factor is no longer fresh (a laptop left open, a stolen cookie) cannot
 * open a way in: creating or changing a connection, minting a SCIM token and requiring SSO all
 * ask for a re-authentication first, and change nothing without it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser } from "../../../core/test/helpers.js"
import { assembledApp, type App, type Tenant } from "./app.js"

let app: App
let acme: Tenant
let owner: Browser

beforeAll(async () => {
  app = await assembledApp({ config: { stepUp: { maxAge: 1 } } })
  acme = await app.tenant("acme", "acme.test")
  owner = await app.signedIn({ email: acme.owner.email, password: "correct horse battery staple" })
  await new Promise((resolve) => setTimeout(resolve, 1500))
})
afterAll(() => app.close())

describe("changes that open a way in, from a stale session", () => {
  const c = () => acme.connection.id
  for (const [what, path, body] of [
    ["create a connection", () => `organizations/${acme.id}/connections`, { kind: "saml", name: "Backdoor", saml: { idpEntityId: "https://idp.evil.example", ssoUrl: "https://idp.evil.example/sso", certificates: ["MIIB"] } }],
    ["swap the IdP's certificates", () => `organizations/${acme.id}/connections/${c()}`, { saml: { certificates: ["MIIBattacker"] } }],
    ["mint a SCIM token", () => `organizations/${acme.id}/connections/${c()}/scim-tokens`, {}],
    ["delete a connection", () => `organizations/${acme.id}/connections/${c()}/delete`, {}],
    ["turn requireSso off", () => `organizations/${acme.id}/domains/acme.test/policy`, { requireSso: false }],
  ] as const) {
    it(`cannot ${what}: 403 step-up, nothing changed`, async () => {
      const before = JSON.stringify([await app.store.listConnections(acme.id), await app.store.listScimTokens(c()), await app.store.listDomains(acme.id)])
      const answer = await app.manage(owner, "POST", path(), body)
      expect(answer.status).toBe(403)
      expect(JSON.stringify([await app.store.listConnections(acme.id), await app.store.listScimTokens(c()), await app.store.listDomains(acme.id)])).toBe(before)
    })
  }

  it("can still read (listing asks for no step-up)", async () => {
    expect((await app.manage(owner, "GET", `organizations/${acme.id}/connections`)).status).toBe(200)
  })
})
