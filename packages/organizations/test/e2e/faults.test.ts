// Organizations on a bad day, end to end: two app processes (./app.ts) on one throwaway
// PostgreSQL, then one throwaway Redis, with adapterTimeout at 1.5 s. The store is killed
// (-9) while invitations are being created and accepted over HTTP on both instances, then
// paused for longer than adapterTimeout, and each time brought back without touching the
// apps. What clients and the log must show (docs/reliability.md, docs/organizations.md):
// 503 and never a 500 or a stack; no half-made membership; no mail for an invitation the
// store lacks; recovery without an app restart; one logged outage per store, then counts;
// no secret in any log line.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { E2E_PASSWORD, E2E_SECRET } from "./constants.ts"
import { invitationFor, showsStack, signedIn, startCluster, STORES, type Answer, type Instance, type Person } from "./harness.ts"

const ADAPTER_TIMEOUT = 1_500

/** One request of the workload and what it got. */
interface Sent {
  kind: "invite" | "accept"
  /** The invitee's address (invite) or the accepting person's (accept). */
  email: string
  answer: Answer
  ms: number
}

async function timed(kind: Sent["kind"], email: string, request: Promise<Answer>): Promise<Sent> {
  const start = Date.now()
  const answer = await request
  return { kind, email, answer, ms: Date.now() - start }
}

/** The invitations' ids in the links `instances` mailed. */
const mailedIds = (instances: Instance[]) => new Set(instances.flatMap((i) => i.mails.map((m) => new URL(m.url).pathname.split("/").at(-1)!)))

/** Every answer is a success or a 503 with Retry-After; none is a 500, a stack, or no answer at all. */
function expectOnlySuccessOr503(sent: Sent[], success: number) {
  for (const { answer } of sent) {
    expect(showsStack(answer)).toBe(false)
    if (answer.status === success) continue
    expect({ status: answer.status, error: answer.body?.error }).toEqual({ status: 503, error: "ServiceUnavailable" })
    expect(answer.headers.get("retry-after")).toBe("5")
  }
}

for (const store of STORES) {
  store.gate.describe(`organizations over HTTP while ${store.label} fails`, () => {
    let cluster: Awaited<ReturnType<typeof startCluster>>
    let A: string
    let B: string
    let owner: Person
    let orgId: string
    /** Everything secret the suite handed around: none may appear in a log line. */
    const secrets = new Set<string>([E2E_SECRET, E2E_PASSWORD])

    beforeAll(async () => {
      cluster = await startCluster(store, 2, { E2E_ADAPTER_TIMEOUT: String(ADAPTER_TIMEOUT) })
      ;[A, B] = cluster.instances.map((i) => i.base) as [string, string]
      owner = await signedIn(A, `owner-${store.kind}@e2e.test`)
      const created = await owner.post(A, "", { name: "Stormy Weather" })
      expect(created.status).toBe(201)
      orgId = created.body.organization.id
    }, 90_000)
    afterAll(async () => {
      await cluster?.close()
    })

    /** Pending invitations and members, read on B once the store is back. */
    async function state() {
      const [pending, members] = await Promise.all([owner.get(B, `${orgId}/invitations`), owner.get(B, `${orgId}/members`)])
      expect([pending.status, members.status]).toEqual([200, 200])
      return {
        pending: pending.body.invitations as Array<{ id: string; email: string }>,
        members: members.body.members as Array<{ userId: string; email: string; role: string }>,
      }
    }

    function rememberSecrets(people: Person[]) {
      for (const p of [owner, ...people]) for (const value of p.jar.values()) secrets.add(value)
      for (const instance of cluster.instances) for (const mail of instance.mails) secrets.add(new URL(mail.url).searchParams.get("token")!)
    }

    describe("the store killed while invitations are created and accepted on both instances", () => {
      it("answers 503 (never 500), leaves no half state, mails no lost invitation, and recovers without an app restart", async () => {
        // Twelve people invited and signed in before the fault, each about to accept.
        const invitees = await Promise.all(Array.from({ length: 12 }, (_, n) => signedIn(n % 2 ? B : A, `kill-${n}@e2e.test`)))
        for (const p of invitees) expect((await owner.post(A, `${orgId}/invitations`, { email: p.email })).status).toBe(201)
        const links = new Map(invitees.map((p) => [p.email, invitationFor(cluster.instances[0]!, p.email)]))
        const newcomers = Array.from({ length: 12 }, (_, n) => `late-${store.kind}-${n}@e2e.test`)

        // Accepts and new invitations in a stream, one every 25 ms, alternating kinds and
        // instances; the kill lands in the middle (after the fourth answer), so some finish
        // before it, some are caught inside it, and the rest meet a store that is gone.
        let answered = 0
        let fourth: () => void = () => {}
        const fourAnswered = new Promise<void>((resolve) => (fourth = resolve))
        const count = (s: Sent) => {
          if (++answered === 4) fourth()
          return s
        }
        const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
        const inFlight = invitees.flatMap((p, n) => {
          const link = links.get(p.email)!
          return [
            later(50 * n).then(() => timed("accept", p.email, p.post(n % 2 ? A : B, `invitations/${link.id}/accept`, { token: link.token }))).then(count),
            later(50 * n + 25).then(() => timed("invite", newcomers[n]!, owner.post(n % 2 ? B : A, `${orgId}/invitations`, { email: newcomers[n]! }))).then(count),
          ]
        })
        await fourAnswered
        await cluster.server.kill()
        const sent = await Promise.all(inFlight)
        // While it is down, requests that need it answer 503 too, on both instances.
        const during = await Promise.all([
          timed("invite", "down-a@e2e.test", owner.post(A, `${orgId}/invitations`, { email: "down-a@e2e.test" })),
          timed("invite", "down-b@e2e.test", owner.post(B, `${orgId}/invitations`, { email: "down-b@e2e.test" })),
        ])
        await cluster.server.start()
        expect(during.map((s) => s.answer.status)).toEqual([503, 503])
        expectOnlySuccessOr503(sent.filter((s) => s.kind === "accept"), 200)
        expectOnlySuccessOr503(sent.filter((s) => s.kind === "invite"), 201)
        // The fault hit the stream: some got through before it, some did not.
        expect(sent.some((s) => s.answer.status === 503)).toBe(true)
        expect(sent.filter((s) => s.answer.status !== 503).length).toBeGreaterThanOrEqual(4)

        // Each instance's client reconnects on its own (ioredis backs off up to 1 s; pg opens
        // new connections at the next request): wait, bounded, until both read the store again.
        for (const base of [A, B]) await expect.poll(async () => (await owner.get(base, `${orgId}/members`)).status, { timeout: 10_000 }).toBe(200)
        const { pending, members } = await state()
        const pendingIds = new Set(pending.map((i) => i.id))
        // Each accept all or nothing: a member (once) and no longer pending, or pending and no member.
        for (const p of invitees) {
          const joined = members.filter((m) => m.email === p.email)
          expect(joined.length <= 1).toBe(true)
          expect({ email: p.email, joined: joined.length === 1 }).toEqual({ email: p.email, joined: !pendingIds.has(links.get(p.email)!.id) })
          // An accept answered 200 did happen.
          const answer = sent.find((s) => s.kind === "accept" && s.email === p.email)!.answer
          if (answer.status === 200) expect(joined).toHaveLength(1)
        }
        // Every link mailed is for an invitation the store holds; every 201 was mailed.
        const accepted = new Set([...links.values()].filter((l) => !pendingIds.has(l.id)).map((l) => l.id))
        for (const id of mailedIds(cluster.instances)) expect(pendingIds.has(id) || accepted.has(id)).toBe(true)
        for (const s of sent) if (s.kind === "invite" && s.answer.status === 201) expect(pendingIds.has(s.answer.body.invitation.id)).toBe(true)
        expect(cluster.instances.flatMap((i) => i.mails).filter((m) => m.to.startsWith("down-"))).toEqual([])

        // Back without restarting either app: what failed succeeds when retried, on either instance.
        for (const [n, p] of invitees.entries()) {
          const link = links.get(p.email)!
          if (!pendingIds.has(link.id)) continue
          expect((await p.post(n % 2 ? B : A, `invitations/${link.id}/accept`, { token: link.token })).status).toBe(200)
        }
        for (const [n, email] of [...newcomers, "down-a@e2e.test"].entries()) {
          if (pending.some((i) => i.email === email)) continue
          expect((await owner.post(n % 2 ? A : B, `${orgId}/invitations`, { email })).status).toBe(201)
        }
        const after = await state()
        expect(invitees.every((p) => after.members.filter((m) => m.email === p.email).length === 1)).toBe(true)
        expect(cluster.instances.map((i) => i.crashes)).toEqual([0, 0])
        rememberSecrets(invitees)
      }, 120_000)
    })

    describe("a store slower than adapterTimeout (paused)", () => {
      it("answers 503 within about adapterTimeout, and serves again once it resumes", async () => {
        const invitee = await signedIn(B, `pause-${store.kind}@e2e.test`)
        expect((await owner.post(A, `${orgId}/invitations`, { email: invitee.email })).status).toBe(201)
        const link = invitationFor(cluster.instances[0]!, invitee.email)
        const mailsBefore = cluster.instances.map((i) => i.mails.length)

        cluster.server.pause()
        let sent: Sent[]
        try {
          sent = await Promise.all([
            timed("accept", invitee.email, invitee.post(A, `invitations/${link.id}/accept`, { token: link.token })),
            timed("accept", invitee.email, invitee.post(B, `invitations/${link.id}/accept`, { token: link.token })),
            timed("invite", "paused-a@e2e.test", owner.post(A, `${orgId}/invitations`, { email: "paused-a@e2e.test" })),
            timed("invite", "paused-b@e2e.test", owner.post(B, `${orgId}/invitations`, { email: "paused-b@e2e.test" })),
          ])
        } finally {
          cluster.server.resume()
        }
        expect(sent.map((s) => s.answer.status)).toEqual([503, 503, 503, 503])
        expectOnlySuccessOr503(sent, 0)
        // Bounded by adapterTimeout (at most 1.25 × it), plus the way there and back on busy cores.
        for (const s of sent) expect(s.ms).toBeLessThan(ADAPTER_TIMEOUT * 1.25 + 1_500)
        // No invitation reached the store before the timeout, so none was mailed.
        expect(cluster.instances.map((i) => i.mails.length)).toEqual(mailsBefore)

        // Resumed: the same requests succeed, without restarting either app. The writes held by
        // the pause may land late (a timeout cannot cancel them), so the invite may find itself made.
        const accepted = await invitee.post(B, `invitations/${link.id}/accept`, { token: link.token })
        expect(accepted.status).toBe(200)
        const invited = await owner.post(A, `${orgId}/invitations`, { email: "paused-c@e2e.test" })
        expect(invited.status).toBe(201)
        const { members } = await state()
        expect(members.filter((m) => m.email === invitee.email)).toHaveLength(1)
        rememberSecrets([invitee])
      }, 120_000)
    })

    describe("the log of both outages", () => {
      it("has each store's failure once with its chain, then counts, and no secret", async () => {
        for (const instance of cluster.instances) {
          const failures = instance.logs.filter((l) => l.source === "auth" && l.level === "error")
          // One chain per store that failed (the adapter, the organizations store), not one per request.
          const stores = failures.map((l) => l.chain?.map((c) => c.message).join(" <- ") ?? "")
          expect(failures.length, stores.join("\n")).toBeLessThanOrEqual(2)
          expect(failures.length).toBeGreaterThanOrEqual(1)
          // What came after is counted in one line per store and window.
          const recovered = instance.logs.filter((l) => l.code === "store-recovered")
          expect(recovered.length).toBeGreaterThanOrEqual(1)
          expect(recovered.every((l) => (l.details?.failures ?? 0) >= 1)).toBe(true)
          expect(instance.logs.filter((l) => l.source === "app")).toEqual([])
          for (const line of instance.logs) for (const secret of secrets) expect(line.raw.includes(secret), `a secret in: ${line.raw.slice(0, 300)}`).toBe(false)
        }
      })
    })
  })
}
