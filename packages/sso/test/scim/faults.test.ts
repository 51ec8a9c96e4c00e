/**
 * Faults and races: a store or the app down is a 503 with Retry-After and no details, never
 * a 500 or half-written state; fifty clients at once create one user, not fifty.
 */
import { beforeEach, describe, expect, it } from "vitest"
import { memorySsoStore } from "../../src/memory.js"
import type { SsoStore } from "../../src/store/types.js"
import { GROUP_SCHEMA, PATCH_OP, USER_SCHEMA, world, type World } from "./world.js"

const user = (userName: string) => ({ schemas: [USER_SCHEMA], userName, emails: [{ value: userName, type: "work", primary: true }], active: true })

/** The memory store with chosen methods failing, as a database that refuses connections. */
function faultyStore(down: Set<string>): SsoStore {
  const store = memorySsoStore()
  return new Proxy(store, {
    get(target, name: string) {
      const method = (target as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[name]!
      return (...args: unknown[]) => (down.has(name) ? Promise.reject(new Error(`${name}: ECONNREFUSED 10.0.0.5:5432 password=hunter2`)) : method.apply(target, args))
    },
  })
}

const expectUnavailable = (res: { status: number; body: any; headers: Record<string, string> }) => {
  expect(res.status).toBe(503)
  expect(res.headers["Retry-After"]).toBeDefined()
  expect(res.body).toEqual({ schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"], status: "503", detail: "The directory is unavailable; retry later" })
}

describe("a store that is down", () => {
  let down: Set<string>
  let w: World
  let token: string
  beforeEach(async () => {
    down = new Set()
    w = world({ store: faultyStore(down) })
    token = (await w.token("org-a")).token
  })

  it("answers 503 when the token store is down, and the error goes to the log only", async () => {
    down.add("findScimToken")
    const res = await w.call(token, "org-a", "GET", "/Users")
    expectUnavailable(res)
    expect(JSON.stringify(res.body)).not.toContain("hunter2")
    expect(w.errors).toHaveLength(1)
  })

  it("answers 503 when the records cannot be read or written", async () => {
    down.add("listScimUsers")
    expectUnavailable(await w.call(token, "org-a", "GET", "/Users"))
    down.clear()
    down.add("createScimUser")
    expectUnavailable(await w.call(token, "org-a", "POST", "/Users", user("ada@acme.com")))
    down.clear()
    // The account was made before the store failed; the retry links to it instead of failing on its address.
    const retry = await w.call(token, "org-a", "POST", "/Users", user("ada@acme.com"))
    expect(retry.status).toBe(201)
    expect(retry.body.id).toBe((await w.adapter.getUserByEmail!("ada@acme.com"))!.id)
  })

  it("leaves no SCIM record behind when the membership cannot be made, so the retry provisions", async () => {
    w.failing.add("addMember")
    expectUnavailable(await w.call(token, "org-a", "POST", "/Users", user("ada@acme.com")))
    expect(await w.store.findScimUser("org-a", { userName: "ada@acme.com" })).toBeNull()
    w.failing.clear()
    const retry = await w.call(token, "org-a", "POST", "/Users", user("ada@acme.com"))
    expect(retry.status).toBe(201)
    expect(w.members.get(`org-a\n${retry.body.id}`)).toBe("member")
  })

  it("keeps a user active (and the record unchanged) when ending the membership fails; the retry deactivates", async () => {
    const id = (await w.call(token, "org-a", "POST", "/Users", user("ada@acme.com"))).body.id
    const session = await w.signIn(id, "org-a")
    const deactivate = { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: false } }] }
    w.failing.add("removeMember")
    expectUnavailable(await w.call(token, "org-a", "PATCH", `/Users/${id}`, deactivate))
    expect((await w.store.getScimUser("org-a", id))!.active).toBe(true)
    w.failing.clear()
    // The session store down after the membership is gone: 503, and the retry ends the sessions.
    down.add("endSessions")
    expectUnavailable(await w.call(token, "org-a", "PATCH", `/Users/${id}`, deactivate))
    expect(w.members.has(`org-a\n${id}`)).toBe(false)
    down.clear()
    expect((await w.call(token, "org-a", "PATCH", `/Users/${id}`, deactivate)).status).toBe(200)
    expect(await w.store.sessionEnded(session)).toBe(true)
    expect((await w.store.getScimUser("org-a", id))!.active).toBe(false)
  })

  it("sets roles again on the retry of a group change whose role update failed", async () => {
    const id = (await w.call(token, "org-a", "POST", "/Users", user("ada@acme.com"))).body.id
    const gid = (await w.call(token, "org-a", "POST", "/Groups", { schemas: [GROUP_SCHEMA], displayName: "Portcullis Admins" })).body.id
    const add = { schemas: [PATCH_OP], Operations: [{ op: "Add", path: "members", value: [{ value: id }] }] }
    w.failing.add("setRole")
    expectUnavailable(await w.call(token, "org-a", "PATCH", `/Groups/${gid}`, add))
    expect(w.members.get(`org-a\n${id}`)).toBe("member")
    w.failing.clear()
    expect((await w.call(token, "org-a", "PATCH", `/Groups/${gid}`, add)).status).toBe(200)
    expect(w.members.get(`org-a\n${id}`)).toBe("admin")
  })

  it("still answers when the audit log is down: the change stands, the failure is reported", async () => {
    const w2 = world()
    const t = (await w2.token("org-a")).token
    const dir = w2.directory
    w2.directory = (org) => ({ ...dir(org), audit: () => Promise.reject(new Error("audit down")), reportError: (e) => w2.errors.push(e) })
    const res = await w2.call(t, "org-a", "POST", "/Users", user("ada@acme.com"))
    expect(res.status).toBe(201)
    expect(await w2.store.findScimUser("org-a", { userName: "ada@acme.com" })).not.toBeNull()
    expect(w2.errors).toEqual([new Error("audit down")])
  })
})

describe("a store that is slow", () => {
  it("answers 503 within the store's deadline when wrapped as core wraps extension stores (host.wrapStore)", async () => {
    const inner = memorySsoStore()
    // The store hangs on listing; the wrapper gives each call 100 ms, as core's adapterTimeout does.
    const slow = new Proxy(inner, {
      get(target, name: string) {
        const method = (target as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[name]!
        return (...args: unknown[]) => {
          const work = name === "listScimUsers" ? new Promise(() => {}) : method.apply(target, args)
          return Promise.race([work, new Promise((_, reject) => setTimeout(() => reject(new DOMException(`${name} did not answer within 100 ms`, "TimeoutError")), 100))])
        }
      },
    })
    const w = world({ store: slow })
    const { token } = await w.token("org-a")
    const start = performance.now()
    expectUnavailable(await w.call(token, "org-a", "GET", "/Users"))
    expect(performance.now() - start).toBeLessThan(1_000)
  })
})

describe("concurrent requests", () => {
  it("makes one user of fifty simultaneous creates of one userName: one 201, forty-nine 409", async () => {
    const w = world()
    const { token } = await w.token("org-a")
    const results = await Promise.all(Array.from({ length: 50 }, () => w.call(token, "org-a", "POST", "/Users", user("ada@acme.com"))))
    const statuses = results.map((r) => r.status)
    expect(statuses.filter((s) => s === 201)).toHaveLength(1)
    expect(statuses.filter((s) => s === 409)).toHaveLength(49)
    expect(results.filter((r) => r.status === 409).every((r) => r.body.scimType === "uniqueness")).toBe(true)
    expect(await w.store.listScimUsers("org-a")).toHaveLength(1)
    expect([...w.members.keys()]).toEqual([`org-a\n${results.find((r) => r.status === 201)!.body.id}`])
  })

  it("keeps every member of twenty simultaneous member additions to one group", async () => {
    const w = world()
    const { token } = await w.token("org-a")
    const ids: string[] = []
    for (let i = 0; i < 20; i++) ids.push((await w.call(token, "org-a", "POST", "/Users", user(`u${i}@acme.com`))).body.id)
    const gid = (await w.call(token, "org-a", "POST", "/Groups", { displayName: "Portcullis Admins" })).body.id
    const results = await Promise.all(ids.map((id) => w.call(token, "org-a", "PATCH", `/Groups/${gid}`, { schemas: [PATCH_OP], Operations: [{ op: "add", path: "members", value: [{ value: id }] }] })))
    expect(results.map((r) => r.status)).toEqual(ids.map(() => 200))
    expect((await w.store.getScimGroup("org-a", gid))!.members.sort()).toEqual([...ids].sort())
    expect(ids.every((id) => w.members.get(`org-a\n${id}`) === "admin")).toBe(true)
  })

  it("answers one of two simultaneous If-Match writes of one version with 412", async () => {
    const w = world()
    const { token } = await w.token("org-a")
    const id = (await w.call(token, "org-a", "POST", "/Users", user("ada@acme.com"))).body.id
    const patch = (title: string) => w.call(token, "org-a", "PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", path: "title", value: title }] }, { ifMatch: 'W/"1"' })
    const statuses = (await Promise.all([patch("a"), patch("b")])).map((r) => r.status).sort()
    expect(statuses).toEqual([200, 412])
  })
})
