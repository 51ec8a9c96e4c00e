// Organizations across instances, end to end: two app processes (./app.ts: node:http +
// Auth() + organizations) on one throwaway PostgreSQL (SQL adapter and store), then one
// throwaway Redis (Redis adapter and store), with one secret. Requests go to either, as
// behind a load balancer; whatever one instance did, the other sees at once (STYLE.md §20).
// The apps run the built packages.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { invitationFor, Person, showsStack, signedIn, startCluster, STORES, type Answer } from "./harness.ts"

/** Counts of answers by `status/code`, e.g. `{ "200/": 1, "410/invitation-unavailable": 49 }`. */
function tally(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const a of answers) {
    const key = `${a.status}/${typeof a.body === "object" && a.body?.error ? String(a.body.error) : ""}`
    counts[key] = (counts[key] ?? 0) + 1
  }
  return counts
}

/** `count` signed-in people, signed in alternately on each instance, a few at a time. */
async function people(bases: string[], tag: string, count: number): Promise<Person[]> {
  const all: Person[] = []
  for (let n = 0; n < count; n += 10) {
    const batch = Array.from({ length: Math.min(10, count - n) }, (_, k) => signedIn(bases[(n + k) % bases.length]!, `${tag}-${n + k}@e2e.test`))
    all.push(...(await Promise.all(batch)))
  }
  return all
}

for (const store of STORES) {
  store.gate.describe(`two instances on one ${store.label}`, () => {
    let cluster: Awaited<ReturnType<typeof startCluster>>
    let A: string
    let B: string
    beforeAll(async () => {
      cluster = await startCluster(store, 2)
      ;[A, B] = cluster.instances.map((i) => i.base) as [string, string]
    }, 90_000)
    afterAll(async () => {
      // Nothing any instance answered showed a crash.
      expect(cluster?.instances.map((i) => i.crashes)).toEqual([0, 0])
      await cluster?.close()
    })

    /** An organization created on A by `owner`, with an invitation (made on A) for `invitee`. */
    async function invited(owner: Person, invitee: string, name: string) {
      const created = await owner.post(A, "", { name })
      expect(created.status).toBe(201)
      const id: string = created.body.organization.id
      const invitation = await owner.post(A, `${id}/invitations`, { email: invitee })
      expect(invitation.status).toBe(201)
      return { id, link: invitationFor(cluster.instances[0]!, invitee) }
    }

    async function membersOf(owner: Person, id: string): Promise<Array<{ userId: string; role: string; email: string }>> {
      const answer = await owner.get(B, `${id}/members`)
      expect(answer.status).toBe(200)
      return answer.body.members
    }

    describe("50 concurrent accepts of one invitation, spread over both instances", () => {
      it("by 50 different verified people holding the link: only the invited one joins, once", async () => {
        const owner = await signedIn(A, "owner-many@e2e.test")
        const crowd = await people([A, B], "holder", 50)
        const invitee = crowd[17]!
        const { id, link } = await invited(owner, invitee.email, "Forwarded Ltd")

        const answers = await Promise.all(crowd.map((p, n) => p.post(n % 2 ? B : A, `invitations/${link.id}/accept`, { token: link.token })))
        expect(answers.some(showsStack)).toBe(false)
        // The invitee's one accept wins. Everyone else holds a forwarded link: refused for the
        // address while the invitation is pending, as used up once it is accepted.
        expect(answers[17]!.status).toBe(200)
        const { "200/": won, "403/email-mismatch": mismatched = 0, "410/invitation-unavailable": used = 0, ...other } = tally(answers)
        expect({ won, refused: mismatched + used, other }).toEqual({ won: 1, refused: 49, other: {} })
        const members = await membersOf(owner, id)
        expect(members.map((m) => m.email).sort()).toEqual([invitee.email, owner.email].sort())
        expect((await owner.get(B, `${id}/invitations`)).body.invitations).toEqual([])
      }, 120_000)

      it("by the invited person 50 times at once: one accept, one membership, the rest refused as used", async () => {
        const owner = await signedIn(B, "owner-same@e2e.test")
        const invitee = await signedIn(A, "eager@e2e.test")
        const { id, link } = await invited(owner, invitee.email, "Eager Inc")

        const answers = await Promise.all(Array.from({ length: 50 }, (_, n) => invitee.post(n % 2 ? B : A, `invitations/${link.id}/accept`, { token: link.token })))
        expect(answers.some(showsStack)).toBe(false)
        expect(tally(answers)).toEqual({ "200/": 1, "410/invitation-unavailable": 49 })
        const members = await membersOf(owner, id)
        expect(members.filter((m) => m.email === invitee.email)).toEqual([expect.objectContaining({ role: "member" })])
        expect(members).toHaveLength(2)
      }, 120_000)
    })

    describe("a removal on one instance", () => {
      it("is seen by can() and by the session on the other at once, with the same cookie", async () => {
        const owner = await signedIn(A, "remover@e2e.test")
        const member = await signedIn(B, "removed@e2e.test")
        const { id, link } = await invited(owner, member.email, "Shortlived Co")
        expect((await member.post(B, `invitations/${link.id}/accept`, { token: link.token })).status).toBe(200)
        // Accepting made it the member's active organization, read on either instance.
        expect(await member.can(A, "organization:read", id)).toBe(true)
        expect((await member.sessionOrganizations(B))?.active?.id).toBe(id)

        const removal = await owner.post(A, `${id}/members/${(await member.sessionOrganizations(A))!.userId}/remove`)
        expect(removal.status).toBe(200)
        // The next check, on the other instance, with the cookie issued before the removal.
        expect(await member.can(B, "organization:read", id)).toBe(false)
        expect(await member.can(B, "organization:read")).toBe(false)
        expect((await member.sessionOrganizations(B))?.active).toBeNull()
        expect((await member.get(B, id)).status).toBe(404)
      })
    })

    describe("switching the active organization on one instance", () => {
      it("is the active organization on the other, for the same cookie", async () => {
        const owner = await signedIn(A, "switcher@e2e.test")
        const first = await owner.post(A, "", { name: "First Org" })
        const second = await owner.post(B, "", { name: "Second Org" })
        expect([first.status, second.status]).toEqual([201, 201])
        const [firstId, secondId] = [first.body.organization.id as string, second.body.organization.id as string]
        // The first one made became active (none was).
        expect((await owner.sessionOrganizations(B))?.active?.id).toBe(firstId)

        expect((await owner.post(A, "active", { organizationId: secondId })).status).toBe(200)
        expect((await owner.sessionOrganizations(B))?.active).toMatchObject({ id: secondId, role: "owner" })
        expect((await owner.request(B, "/app/active")).body.active).toMatchObject({ id: secondId })

        expect((await owner.post(B, "active", { organizationId: null })).status).toBe(200)
        expect((await owner.sessionOrganizations(A))?.active).toBeNull()
        // can() without an organization asks about the active one: none now.
        expect(await owner.can(A, "organization:update")).toBe(false)
        expect(await owner.can(A, "organization:update", firstId)).toBe(true)
      })
    })

    describe("50 concurrent creates with one slug, over both instances", () => {
      it("make one organization; the other 49 are refused as slug-taken", async () => {
        const crowd = await people([A, B], "founder", 50)
        const slug = `contested-${store.kind}`
        const answers = await Promise.all(crowd.map((p, n) => p.post(n % 2 ? A : B, "", { name: `Contested ${n}`, slug })))
        expect(answers.some(showsStack)).toBe(false)
        expect(tally(answers)).toEqual({ "201/": 1, "409/slug-taken": 49 })
        // Exactly one of them owns an organization with that slug; nobody else has one at all.
        const lists = await Promise.all(crowd.map((p, n) => p.get(n % 2 ? B : A, "")))
        const owned = lists.flatMap((l) => l.body.organizations as Array<{ slug: string; role: string }>)
        expect(owned).toEqual([expect.objectContaining({ slug, role: "owner" })])
      }, 120_000)
    })
  })
}
