/**
 * Invitations (docs/organizations.md, "Invitations"): single-use, expiring, revocable links
 * that only the invited address's verified owner can accept, and the accept page that
 * shows nothing without the right token.
 */
import { describe, expect, it } from "vitest"
import { memoryOrganizationStore } from "@portcullis/organizations/memory"
import type { OrganizationStore } from "@portcullis/organizations"
import { team, testbed, type Actor, type Testbed } from "./support.js"

/** A team, and an invitation of `email` (default: a new verified person, zoe) by its owner. */
async function invited(bed: Testbed, options: { role?: string; verified?: boolean; invitee?: Actor } = {}) {
  const t = await team(bed)
  const zoe = options.invitee ?? (await bed.person("zoe", { verified: options.verified ?? true }))
  const created = await t.owner.post(`${t.id}/invitations`, { email: zoe.email, role: options.role ?? "member" })
  expect(created.status).toBe(201)
  const { id: invitationId, token } = bed.invitationFor(zoe.email.toLowerCase())
  return { ...t, zoe, invitationId, token }
}

describe("accepting an invitation", () => {
  it("refuses a wrong token, a missing invitation and a malformed id alike, with 410", async () => {
    const bed = testbed()
    const { zoe, invitationId, token } = await invited(bed)
    for (const [path, body] of [
      [`invitations/${invitationId}/accept`, { token: token.slice(0, -1) + (token.endsWith("A") ? "B" : "A") }],
      [`invitations/${invitationId}/accept`, {}],
      [`invitations/00000000-0000-4000-8000-000000000000/accept`, { token }],
    ] as const) {
      const refused = await zoe.post(path, body)
      expect(refused.status).toBe(410)
      expect(refused.body.error).toBe("invitation-unavailable")
    }
    expect((await zoe.get("")).body.organizations).toEqual([])
  })

  it("refuses an expired invitation", async () => {
    const bed = testbed({ extension: { invitations: { maxAge: 1 } } })
    const { zoe, invitationId, token } = await invited(bed)
    await new Promise((resolve) => setTimeout(resolve, 1100))
    const refused = await zoe.post(`invitations/${invitationId}/accept`, { token })
    expect(refused.status).toBe(410)
  })

  it("refuses a revoked invitation", async () => {
    const bed = testbed()
    const { id, owner, zoe, invitationId, token } = await invited(bed)
    await owner.post(`${id}/invitations/${invitationId}/revoke`)
    expect((await zoe.post(`invitations/${invitationId}/accept`, { token })).status).toBe(410)
  })

  it("works once: a replay is refused, even after the member left", async () => {
    const bed = testbed()
    const { id, zoe, invitationId, token } = await invited(bed)
    expect((await zoe.post(`invitations/${invitationId}/accept`, { token })).status).toBe(200)
    expect((await zoe.post(`invitations/${invitationId}/accept`, { token })).status).toBe(410)
    await zoe.post(`${id}/leave`)
    expect((await zoe.post(`invitations/${invitationId}/accept`, { token })).status).toBe(410)
    expect((await zoe.get(id)).status).toBe(404)
  })

  it("refuses another signed-in user the link was forwarded to, with email-mismatch", async () => {
    const bed = testbed()
    const { id, invitationId, token } = await invited(bed)
    const mallory = await bed.person("mallory")
    const refused = await mallory.post(`invitations/${invitationId}/accept`, { token })
    expect(refused.status).toBe(403)
    expect(refused.body.error).toBe("email-mismatch")
    expect((await mallory.get(id)).status).toBe(404)
    expect(bed.audit.some((e) => e.type === "organizations.invitationAccepted" && e.outcome === "failure" && e.reason === "email-mismatch")).toBe(true)
  })

  it("refuses the invited address while it is not verified, with email-unverified, and accepts once it is", async () => {
    const bed = testbed()
    const { id, zoe, invitationId, token } = await invited(bed, { verified: false })
    const refused = await zoe.post(`invitations/${invitationId}/accept`, { token })
    expect(refused.status).toBe(403)
    expect(refused.body.error).toBe("email-unverified")
    await bed.adapter.updateUser!({ id: zoe.id, emailVerified: new Date() })
    expect((await zoe.post(`invitations/${invitationId}/accept`, { token })).status).toBe(200)
    expect((await zoe.get(id)).body.organization.role).toBe("member")
  })

  it("matches the address without regard to case", async () => {
    const bed = testbed()
    const zoe = await bed.person("zoe", { email: "Zoe.Q@Example.com" })
    const { zoe: same, invitationId, token } = await invited(bed, { invitee: zoe })
    expect((await same.post(`invitations/${invitationId}/accept`, { token })).status).toBe(200)
  })

  it("needs a session", async () => {
    const bed = testbed()
    const { invitationId, token } = await invited(bed)
    const signedOut = await bed.person("nobody", { signedIn: false })
    expect((await signedOut.post(`invitations/${invitationId}/accept`, { token })).status).toBe(401)
  })

  it("makes one membership of 50 concurrent accepts", async () => {
    const bed = testbed()
    const { id, zoe, invitationId, token } = await invited(bed, { role: "billing" })
    const csrf = await zoe.browser.csrfToken()
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        zoe.browser.request(`/auth/organizations/invitations/${invitationId}/accept`, { json: { token }, headers: { "x-csrf-token": csrf } }).then((r) => r.status),
      ),
    )
    expect(answers.filter((s) => s === 200)).toHaveLength(1)
    expect(answers.filter((s) => s === 410)).toHaveLength(49)
    expect((await bed.store.listMembers(id)).filter((m) => m.userId === zoe.id)).toEqual([expect.objectContaining({ role: "billing" })])
    expect(bed.events().filter((e) => e === "memberAdded/success")).toHaveLength(4) // three by team(), one here
  })

  it("limits accepts to 10 a minute per user", async () => {
    const bed = testbed({ config: { rateLimit: {} } })
    const { zoe, invitationId } = await invited(bed)
    const statuses: number[] = []
    for (let i = 0; i < 11; i++) statuses.push((await zoe.post(`invitations/${invitationId}/accept`, { token: "wrong" })).status)
    expect(statuses.slice(0, 10).every((s) => s === 410)).toBe(true)
    expect(statuses[10]).toBe(429)
  })
})

describe("creating an invitation", () => {
  it("refuses someone who is a member already", async () => {
    const bed = testbed()
    const { id, owner, member } = await team(bed)
    const refused = await owner.post(`${id}/invitations`, { email: member.email.toUpperCase() })
    expect(refused.status).toBe(409)
    expect(refused.body.error).toBe("already-member")
  })

  it("refuses an address that is not one", async () => {
    const bed = testbed()
    const { id, owner } = await team(bed)
    expect((await owner.post(`${id}/invitations`, { email: "not an address" })).body.error).toBe("invalid-email")
  })

  it("refuses to mail a link from an origin only the Host header vouches for", async () => {
    const bed = testbed({ origin: "https://forged.example", config: { trustedOrigins: [] } })
    const owner = await bed.person("olivia")
    const id = (await owner.post("", { name: "Acme" })).body.organization.id
    const refused = await owner.post(`${id}/invitations`, { email: "zoe@example.com" })
    expect(refused.status).toBe(400)
    expect(refused.body.error).toBe("untrusted-origin")
    expect(bed.mail.sent).toEqual([])
    expect(await bed.store.listInvitations(id, new Date())).toEqual([])
  })

  it("refuses beyond the member limit", async () => {
    const bed = testbed({ extension: { limits: { membersPerOrganization: 4 } } })
    const { id, owner } = await team(bed)
    const refused = await owner.post(`${id}/invitations`, { email: "zoe@example.com" })
    expect(refused.status).toBe(409)
    expect(refused.body.error).toBe("member-limit")
  })

  it("withdraws the invitation when the mail can't be sent, and answers 503", async () => {
    let failing = false
    const bed = testbed({ mailFails: () => failing })
    const { id, owner } = await team(bed)
    failing = true
    const failed = await owner.post(`${id}/invitations`, { email: "zoe@example.com" })
    expect(failed.status).toBe(503)
    expect(await bed.store.listInvitations(id, new Date())).toEqual([])
  })
})

/** A store whose methods throw once `down()` says so, as a database that went away. */
function flakyStore(down: () => boolean, methods: (keyof OrganizationStore)[]): OrganizationStore {
  const inner = memoryOrganizationStore()
  return new Proxy(inner, {
    get(target, name: keyof OrganizationStore) {
      const value = target[name]
      if (typeof value !== "function" || !methods.includes(name)) return value
      return (...args: unknown[]) => (down() ? Promise.reject(new Error("connect ECONNREFUSED 10.0.0.9:5432")) : (value as (...a: unknown[]) => unknown).apply(target, args))
    },
  })
}

describe("the store going down mid-invitation", () => {
  it("answers 503 without the store's message when the invitation can't be stored, and mails nothing", async () => {
    let down = false
    const bed = testbed({ store: flakyStore(() => down, ["createInvitation"]) })
    const { id, owner } = await team(bed)
    const mailed = bed.mail.sent.length
    down = true
    const failed = await owner.post(`${id}/invitations`, { email: "zoe@example.com" })
    expect(failed.status).toBe(503)
    expect(JSON.stringify(failed.body)).not.toContain("10.0.0.9")
    expect(bed.mail.sent.length).toBe(mailed)
    down = false
    expect(await bed.store.listInvitations(id, new Date())).toEqual([])
  })

  it("answers 503 when accepting fails, and leaves the invitation usable and no membership", async () => {
    let down = false
    const bed = testbed({ store: flakyStore(() => down, ["acceptInvitation"]) })
    const { id, zoe, invitationId, token } = await invited(bed)
    down = true
    expect((await zoe.post(`invitations/${invitationId}/accept`, { token })).status).toBe(503)
    down = false
    expect(await bed.store.getMembership(id, zoe.id)).toBeNull()
    expect((await zoe.post(`invitations/${invitationId}/accept`, { token })).status).toBe(200)
  })
})

describe("the accept page", () => {
  const page = async (who: Actor, invitationId: string, token: string | null, language = "en") => {
    const response = await who.browser.request(`/auth/organizations/invitations/${invitationId}${token === null ? "" : `?token=${encodeURIComponent(token)}`}`, { headers: { "accept-language": language } })
    return { status: response.status, text: await response.text() }
  }

  it("shows the same invalid page for a wrong token, no token, and an unknown invitation, naming nothing", async () => {
    const bed = testbed()
    const { zoe, invitationId, token } = await invited(bed)
    const answers = [await page(zoe, invitationId, "wrong"), await page(zoe, invitationId, null), await page(zoe, "00000000-0000-4000-8000-000000000000", token)]
    for (const answer of answers) {
      expect(answer.status).toBe(410)
      expect(answer.text).toContain("This invitation link is invalid")
      expect(answer.text).not.toContain("Acme")
      expect(answer.text).not.toContain("zoe@example.com")
    }
  })

  it("asks a signed-out visitor to sign in or sign up, coming back here", async () => {
    const bed = testbed()
    const { invitationId, token } = await invited(bed)
    const visitor = await bed.person("visitor", { signedIn: false })
    const { status, text } = await page(visitor, invitationId, token)
    expect(status).toBe(200)
    expect(text).toContain("<h1>Join Acme</h1>")
    expect(text).toContain("Olivia invited you to join Acme as Member.")
    const here = encodeURIComponent(`http://localhost:3000/auth/organizations/invitations/${invitationId}?token=${token}`)
    expect(text).toContain(`/auth/signin?callbackUrl=${here}`)
    expect(text).toContain("/auth/password/signup?callbackUrl=")
    expect(text).not.toContain('name="token"')
  })

  it("explains to someone signed in with another address and offers to sign out", async () => {
    const bed = testbed()
    const { invitationId, token } = await invited(bed)
    const mallory = await bed.person("mallory")
    const { text } = await page(mallory, invitationId, token)
    expect(text).toContain("You are signed in as mallory@example.com, but this invitation is for zoe@example.com")
    expect(text).toMatch(/<form method="post" action="http:\/\/localhost:3000\/auth\/signout">/)
    expect(text).not.toContain("/accept")
  })

  it("asks an unverified invitee to confirm the address first", async () => {
    const bed = testbed()
    const { zoe, invitationId, token } = await invited(bed, { verified: false })
    const { text } = await page(zoe, invitationId, token)
    expect(text).toContain("is not confirmed yet")
    expect(text).not.toContain("/accept")
  })

  it("offers the invitee a form that posts the token and the CSRF token, in their language", async () => {
    const bed = testbed()
    const { zoe, invitationId, token } = await invited(bed, { role: "admin" })
    const { status, text } = await page(zoe, invitationId, token, "de")
    expect(status).toBe(200)
    expect(text).toContain('lang="de"')
    expect(text).toContain("<h1>Acme beitreten</h1>")
    expect(text).toContain("als Administrator")
    expect(text).toContain(`action="http://localhost:3000/auth/organizations/invitations/${invitationId}/accept"`)
    expect(text).toContain(`<input type="hidden" name="token" value="${token}">`)
    expect(text).toMatch(/<input type="hidden" name="csrfToken" value="[^"]+">/)
    expect(text).toContain("<button type=\"submit\">Einladung annehmen</button>")
  })

  it("answers a refused form post with a readable page", async () => {
    const bed = testbed()
    const { invitationId, token } = await invited(bed)
    const mallory = await bed.person("mallory")
    const csrfToken = await mallory.browser.csrfToken()
    const response = await mallory.browser.request(`/auth/organizations/invitations/${invitationId}/accept`, { form: { csrfToken, token } })
    expect(response.status).toBe(403)
    expect(response.headers.get("content-type")).toContain("text/html")
    expect(await response.text()).toContain("This invitation is for another email address.")
  })
})
