// Two app processes (chaos/app.ts: Express + Portcullis on database sessions) share one
// store behind a round-robin, as behind a load balancer: what one instance does, the other
// sees at once. Once on PostgreSQL (SQL adapter), once on Redis (Redis adapter), each a
// throwaway server of the test's own. The apps run the built packages (npm test builds).
import { afterAll, beforeAll, expect, it } from "vitest"
import { serviceAvailable } from "@portcullis/adapter-test"
import { freePort, missingBinaries, startThrowawayPostgres, startThrowawayRedis, type ThrowawayServer } from "@portcullis/adapter-test/throwaway"
import { startApp, type AppProcess } from "../../../chaos/child.ts"
import { CHAOS_PASSWORD } from "../../../chaos/app-constants.ts"
import { openMagicLink, requestMagicLink, sessionUser, signIn, signOut } from "../../../chaos/http.ts"

const stores = [
  { store: "postgres" as const, binaries: "postgres" as const, start: startThrowawayPostgres, hint: "install PostgreSQL (initdb, postgres)" },
  { store: "redis" as const, binaries: "redis" as const, start: startThrowawayRedis, hint: "install redis-server" },
]

for (const { store, binaries, start, hint } of stores) {
  const gate = await serviceAvailable({ name: `${store} binaries`, url: "tcp://127.0.0.1:0", start: hint }, async () => {
    const missing = missingBinaries(binaries)
    if (missing.length) throw new Error(`not installed: ${missing.join(", ")}`)
  })

  gate.describe(`two app instances on one ${store}`, () => {
    let server: ThrowawayServer
    let apps: AppProcess[] = []
    /** Round-robin over the two instances, like a load balancer. */
    let turn = 0
    const next = () => apps[turn++ % apps.length]!.base

    beforeAll(async () => {
      server = await start()
      // One after the other: the first runs the migrations, the second finds them done.
      apps.push(await startApp(store, server.url, await freePort()))
      apps.push(await startApp(store, server.url, await freePort()))
    }, 60_000)
    afterAll(async () => {
      await Promise.all(apps.map((app) => app.stop()))
      await server?.close()
      apps = []
    })

    it("a session made on one instance is read on the other, and a sign-out on one ends it on both at once", async () => {
      const [a, b] = [next(), next()]
      const token = await signIn(a, "roaming", CHAOS_PASSWORD)
      expect(token).toBeTruthy()
      expect((await sessionUser(b, token!)).user?.name).toBe("roaming")
      expect((await sessionUser(a, token!)).user?.name).toBe("roaming")

      expect((await signOut(next(), token!)).claimedSuccess).toBe(true)
      // Straight away, on both instances, in either order.
      expect((await sessionUser(next(), token!)).user).toBeNull()
      expect((await sessionUser(next(), token!)).user).toBeNull()
    })

    it("a magic link asked for on one instance signs in once, whichever instance opens it", async () => {
      const asker = apps[0]!
      const sent = asker.magicLinks.length
      expect(await requestMagicLink(asker.base, "link@chaos.test")).toBe(true)
      await expect.poll(() => asker.magicLinks.length).toBe(sent + 1)
      const link = asker.magicLinks[sent]!

      const token = await openMagicLink(apps[1]!.base, link)
      expect(token).toBeTruthy()
      expect((await sessionUser(apps[0]!.base, token!)).user?.email).toBe("link@chaos.test")
      // Used up: neither instance accepts it again.
      expect(await openMagicLink(apps[0]!.base, link)).toBeUndefined()
      expect(await openMagicLink(apps[1]!.base, link)).toBeUndefined()
    })

    it("a magic link opened on both instances at once signs in exactly once", async () => {
      const asker = apps[1]!
      const sent = asker.magicLinks.length
      expect(await requestMagicLink(asker.base, "race@chaos.test")).toBe(true)
      await expect.poll(() => asker.magicLinks.length).toBe(sent + 1)
      const link = asker.magicLinks[sent]!
      const tokens = await Promise.all([openMagicLink(apps[0]!.base, link), openMagicLink(apps[1]!.base, link)])
      expect(tokens.filter(Boolean)).toHaveLength(1)
    })
  })
}
