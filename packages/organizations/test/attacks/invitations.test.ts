/**
 * Attacks, class 3: invitations. Replays, a forwarded link, an unverified or look-alike
 * address, malformed tokens, 50 concurrent accepts, a poisoned Host in the mailed link, the
 * accept page without the right token, open redirects through its callbackUrl — and an
 * invitation outliving its inviter's authority.
 */
import { describe, expect, it } from "vitest"
import { team, testbed, type Actor, type Testbed } from "../support.js"

/** Olivia's team, and an invitation by `by` (default: the owner) of `email` with `role`. */
async function invitation(bed: Testbed, options: { email?: string; role?: string; by?: "owner" | "admin" } = {}) {
  const t = await team(bed)
  const inviter = options.by === "admin" ? t.admin : t.owner
  const email = options.email ?? "zoe@example.com"
  const created = await inviter.post(`${t.id}/invitations`, { email, role: options.role ?? "member" })
  expect(created.status).toBe(201)
  const { id: invitationId, token, url } = bed.invitationFor(email.trim().toLowerCase())
  return { ...t, invitationId, token, url }
}

const accept = (who: Actor, invitationId: string, body: Record<string, unknown>) => who.post(`invitations/${invitationId}/accept`, body)

describe("an invitation outliving its inviter's authority", () => {
  it("can't be accepted once the admin who sent it is demoted (a second address of their own coming back as admin)", async () => {
    const bed = testbed()
    const { id, owner, admin, invitationId, token, url } = await invitation(bed, { email: "adam.alt@example.com", role: "admin", by: "admin" })
    await owner.post(`${id}/members/${admin.id}/role`, { role: "member" })
    const alt = await bed.person("adam-alt", { email: "adam.alt@example.com" })
    const answer = await accept(alt, invitationId, { token })
    expect([answer.status, answer.body.error]).toEqual([410, "invitation-unavailable"])
    expect(await bed.store.getMembership(id, alt.id)).toBeNull()
    // The accept page says the same as for any dead link, naming nothing.
    const page = await alt.browser.request(url)
    expect(page.status).toBe(410)
    expect(await page.text()).not.toContain("Acme")
  })

  it("can't be accepted once the admin who sent it is removed", async () => {
    const bed = testbed()
    const { id, owner, admin, invitationId, token } = await invitation(bed, { role: "member", by: "admin" })
    await owner.post(`${id}/members/${admin.id}/remove`)
    const zoe = await bed.person("zoe")
    expect((await accept(zoe, invitationId, { token })).status).toBe(410)
    expect(await bed.store.getMembership(id, zoe.id)).toBeNull()
  })

  it("still works when the inviter's role still covers it (an admin demoted to an app role that does not is out)", async () => {
    const bed = testbed()
    const { id, owner, admin, invitationId, token } = await invitation(bed, { role: "member", by: "admin" })
    await owner.post(`${id}/members/${admin.id}/role`, { role: "owner" })
    const zoe = await bed.person("zoe")
    expect((await accept(zoe, invitationId, { token })).status).toBe(200)
  })
})

describe("replaying an invitation", () => {
  it("works once; a second accept, one after revoking and one after expiry are refused alike", async () => {
    const bed = testbed({ extension: { invitations: { maxAge: 1 } } })
    const { id, owner, invitationId, token } = await invitation(bed)
    const zoe = await bed.person("zoe")
    expect((await accept(zoe, invitationId, { token })).status).toBe(200)
    expect((await accept(zoe, invitationId, { token })).body.error).toBe("invitation-unavailable")
    await owner.post(`${id}/invitations`, { email: "yan@example.com" })
    const second = bed.invitationFor("yan@example.com")
    expect((await owner.post(`${id}/invitations/${second.id}/revoke`)).status).toBe(200)
    const yan = await bed.person("yan")
    expect((await accept(yan, second.id, { token: second.token })).body.error).toBe("invitation-unavailable")
    // Revoking what is used or revoked already is refused too (no resurrection).
    expect((await owner.post(`${id}/invitations/${invitationId}/revoke`)).status).toBe(404)
    expect(await bed.store.getMembership(id, yan.id)).toBeNull()
  })

  it("makes exactly one membership of 50 concurrent accepts, by one user from two sessions", async () => {
    const bed = testbed()
    const { id, invitationId, token } = await invitation(bed, { role: "billing" })
    const zoe = await bed.person("zoe")
    const other = await zoe.anotherSession()
    const tokens = [await zoe.browser.csrfToken(), await other.browser.csrfToken()]
    const statuses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => {
        const who = i % 2 ? other : zoe
        return who.browser.request(`/auth/organizations/invitations/${invitationId}/accept`, { json: { token }, headers: { "x-csrf-token": tokens[i % 2]! } }).then((r) => r.status)
      }),
    )
    expect(statuses.filter((s) => s === 200)).toHaveLength(1)
    expect(statuses.filter((s) => s === 410)).toHaveLength(49)
    expect((await bed.store.listMembers(id)).filter((m) => m.userId === zoe.id)).toHaveLength(1)
  })
})

describe("a forwarded link", () => {
  it("is useless to any other signed-in user, whatever they put in the body", async () => {
    const bed = testbed()
    const { id, invitationId, token } = await invitation(bed, { role: "admin" })
    const mallory = await bed.person("mallory")
    const answer = await accept(mallory, invitationId, { token, email: "zoe@example.com", userId: "user-zoe" })
    expect([answer.status, answer.body.error]).toEqual([403, "email-mismatch"])
    expect(await bed.store.getMembership(id, mallory.id)).toBeNull()
    // The refusal didn't use it up: Zoe still can.
    const zoe = await bed.person("zoe")
    expect((await accept(zoe, invitationId, { token })).status).toBe(200)
  })

  it("is useless to the invited address while it is unverified", async () => {
    const bed = testbed()
    const { id, invitationId, token } = await invitation(bed)
    const zoe = await bed.person("zoe", { verified: false })
    expect((await accept(zoe, invitationId, { token })).body.error).toBe("email-unverified")
    expect(await bed.store.getMembership(id, zoe.id)).toBeNull()
  })
})

describe("look-alike addresses", () => {
  it("matches the invited address regardless of ASCII case and surrounding space", async () => {
    const bed = testbed()
    const { id, invitationId, token } = await invitation(bed, { email: "  Ada@Example.COM " })
    const ada = await bed.person("ada", { email: "ada@example.com" })
    expect((await accept(ada, invitationId, { token })).status).toBe(200)
    expect(await bed.store.getMembership(id, ada.id)).not.toBeNull()
  })

  it.each([
    ["a trailing dot on the domain", "zoe@example.com."],
    ["a +tag", "zoe+team@example.com"],
    ["a Cyrillic а in the domain", "zoe@exаmple.com"],
    ["a Kelvin sign that lowercases to k", "\u212Aoe@example.com"],
    ["a dotless ı", "zoe@exampıe.com"],
  ])("refuses %s as another address", async (_label, lookalike) => {
    const bed = testbed()
    const { id, invitationId, token } = await invitation(bed, { email: lookalike.includes("\u212A") ? "koe@example.com" : "zoe@example.com" })
    const mallory = await bed.person("mallory", { email: lookalike })
    const answer = await accept(mallory, invitationId, { token })
    expect([answer.status, answer.body.error]).toEqual([403, "email-mismatch"])
    expect(await bed.store.getMembership(id, mallory.id)).toBeNull()
  })
})

describe("malformed tokens and bodies", () => {
  it.each([
    ["a huge token", "A".repeat(100_000)],
    ["an array", ["x"]],
    ["an object", { $ne: null }],
    ["a number", 0],
    ["null", null],
    ["the empty string", ""],
    ["the token's hash", "hash"],
  ])("refuses %s with 410, as any wrong token", async (_label, value) => {
    const bed = testbed()
    const { id, invitationId } = await invitation(bed)
    const zoe = await bed.person("zoe")
    const token = value === "hash" ? (await bed.store.getInvitation(invitationId))!.tokenHash : value
    const answer = await accept(zoe, invitationId, { token })
    expect([answer.status, answer.body.error]).toEqual([410, "invitation-unavailable"])
    expect(await bed.store.getMembership(id, zoe.id)).toBeNull()
  })

  it("refuses the right token under another invitation's id", async () => {
    const bed = testbed()
    const { id, owner, token } = await invitation(bed)
    await owner.post(`${id}/invitations`, { email: "zoe2@example.com" })
    const other = bed.invitationFor("zoe2@example.com")
    const zoe = await bed.person("zoe")
    expect((await accept(zoe, other.id, { token })).status).toBe(410)
  })

  it("accepts the token only from the body, not from the query", async () => {
    const bed = testbed()
    const { invitationId, token } = await invitation(bed)
    const zoe = await bed.person("zoe")
    expect((await zoe.post(`invitations/${invitationId}/accept?token=${token}`, {})).status).toBe(410)
  })
})

describe("the mailed link's host", () => {
  it("is never taken from a forged Host or X-Forwarded-Host: the invitation is refused unless the origin is trusted", async () => {
    const bed = testbed({ origin: "https://evil.example" })
    const ada = await bed.person("ada")
    const id = (await ada.post("", { name: "Acme" })).body.organization.id
    const refused = await ada.browser.request(`/auth/organizations/${id}/invitations`, {
      json: { email: "zoe@example.com" },
      headers: { "x-csrf-token": await ada.browser.csrfToken(), "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" },
    })
    expect(refused.status).toBe(400)
    expect(((await refused.json()) as { error: string }).error).toBe("untrusted-origin")
    expect(bed.mail.sent).toEqual([])
    expect(await bed.store.listInvitations(id, new Date())).toEqual([])
  })

  it("mails the link under the request's origin only when trustedOrigins lists it", async () => {
    const bed = testbed({ origin: "https://evil.example", config: { redirectProxyUrl: undefined } })
    bed.config.trustHost = false
    ;(bed.config as { trustedOrigins?: string[] }).trustedOrigins = ["https://evil.example"]
    const ada = await bed.person("ada")
    const id = (await ada.post("", { name: "Acme" })).body.organization.id
    expect((await ada.post(`${id}/invitations`, { email: "zoe@example.com" })).status).toBe(201)
    expect(new URL(bed.invitationFor("zoe@example.com").url).origin).toBe("https://evil.example")
  })
})

describe("the accept page", () => {
  it("names nothing (organization, inviter, address, role) without the right token", async () => {
    const bed = testbed()
    const { invitationId, token } = await invitation(bed, { role: "admin" })
    const zoe = await bed.person("zoe")
    for (const query of ["", "?token=", `?token=${token}x`, `?token[]=${token}`, `?token=${token.toUpperCase()}`]) {
      const page = await zoe.browser.request(`/auth/organizations/invitations/${invitationId}${query}`)
      const text = await page.text()
      expect(page.status, query).toBe(410)
      for (const secret of ["Acme", "Olivia", "zoe@example.com", "admin", token]) expect(text, `${query} ${secret}`).not.toContain(secret)
    }
  })

  it("never puts an off-site callbackUrl in its form, and the form post never redirects off-site", async () => {
    const bed = testbed()
    const { id, invitationId, token } = await invitation(bed)
    const zoe = await bed.person("zoe")
    for (const callbackUrl of ["https://evil.example/x", "//evil.example", "/\\evil.example", "javascript:alert(1)", "http://localhost:3000@evil.example/"]) {
      const page = await zoe.browser.request(`/auth/organizations/invitations/${invitationId}?token=${token}&callbackUrl=${encodeURIComponent(callbackUrl)}`)
      expect(page.status).toBe(200)
      expect(await page.text()).not.toContain("evil.example")
    }
    const csrfToken = await zoe.browser.csrfToken()
    const posted = await zoe.browser.request(`/auth/organizations/invitations/${invitationId}/accept`, { form: { csrfToken, token, callbackUrl: "https://evil.example/steal" } })
    expect(posted.status).toBe(302)
    expect(new URL(posted.headers.get("location")!).origin).toBe("http://localhost:3000")
    expect(await bed.store.getMembership(id, zoe.id)).not.toBeNull()
  })

  it("keeps the token out of the page's links to other sites and asks browsers to send no referrer", async () => {
    const bed = testbed()
    const { invitationId, token } = await invitation(bed)
    const signedOut = await bed.person("zoe", { signedIn: false })
    const page = await signedOut.browser.request(`/auth/organizations/invitations/${invitationId}?token=${token}`)
    const text = await page.text()
    for (const href of [...text.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, "&"))) {
      if (href.includes(token) || href.includes(encodeURIComponent(token))) expect(new URL(href, "http://localhost:3000").origin).toBe("http://localhost:3000")
    }
    expect(page.headers.get("referrer-policy")).toMatch(/no-referrer|same-origin/)
  })
})
