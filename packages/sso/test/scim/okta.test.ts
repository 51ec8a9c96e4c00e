/**
 * Okta's SCIM 2.0 sequence, as its protocol reference and "test your SCIM" guide document
 * it: look the user up by userName (with startIndex and count), create, read, replace,
 * deactivate with `{"op":"replace","value":{"active":false}}`, reactivate; push groups with
 * name replaces and `members[value eq "…"]` removals.
 */
import { beforeEach, describe, expect, it } from "vitest"
import { GROUP_SCHEMA, PATCH_OP, USER_SCHEMA, world, type World } from "./world.js"

const ORG = "org-a"

/** The create body of Okta's reference, with our domain (Okta sends a password; we must ignore it). */
const oktaUser = (userName = "jdoe@acme.com") => ({
  schemas: [USER_SCHEMA],
  userName,
  name: { givenName: "John", familyName: "Doe" },
  emails: [{ primary: true, value: userName, type: "work" }],
  displayName: "John Doe",
  locale: "en-US",
  externalId: "00ujl29u0le5T6Aj10h7",
  groups: [],
  password: "1mz050nq",
  active: true,
})

let w: World
let token: string
beforeEach(async () => {
  w = world()
  token = (await w.token(ORG)).token
})

describe("Okta's user lifecycle", () => {
  it("looks up, creates, reads, replaces, deactivates and reactivates a user", async () => {
    const lookup = await w.call(token, ORG, "GET", `/Users?filter=${encodeURIComponent('userName eq "jdoe@acme.com"')}&startIndex=1&count=100`)
    expect(lookup.status).toBe(200)
    expect(lookup.headers["Content-Type"]).toBe("application/scim+json")
    expect(lookup.body).toEqual({ schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] })

    const created = await w.call(token, ORG, "POST", "/Users", oktaUser())
    expect(created.status).toBe(201)
    const id = created.body.id as string
    expect(created.headers.Location).toBe(`https://app.example/auth/sso/scim/conn-${ORG}/v2/Users/${id}`)
    expect(created.headers.ETag).toBe('W/"1"')
    expect(created.body).toMatchObject({ userName: "jdoe@acme.com", active: true, externalId: "00ujl29u0le5T6Aj10h7", name: { givenName: "John", familyName: "Doe" }, meta: { resourceType: "User", version: 'W/"1"' } })
    expect(created.body).not.toHaveProperty("password")
    // A Portcullis user with the verified address, a member of the organization.
    const account = await w.adapter.getUserByEmail!("jdoe@acme.com")
    expect(account?.id).toBe(id)
    expect(account?.emailVerified).toBeInstanceOf(Date)
    expect(w.members.get(`${ORG}\n${id}`)).toBe("member")
    expect(JSON.stringify(await w.store.getScimUser(ORG, id))).not.toContain("1mz050nq")

    const found = await w.call(token, ORG, "GET", `/Users?filter=${encodeURIComponent('userName eq "JDOE@acme.com"')}&startIndex=1&count=100`)
    expect(found.body.totalResults).toBe(1)
    expect(found.body.Resources[0].id).toBe(id)

    const read = await w.call(token, ORG, "GET", `/Users/${id}`)
    expect(read.status).toBe(200)
    expect(read.body.emails).toEqual([{ primary: true, value: "jdoe@acme.com", type: "work" }])

    const replaced = await w.call(token, ORG, "PUT", `/Users/${id}`, { ...oktaUser(), id, name: { givenName: "Johnny", familyName: "Doe" } })
    expect(replaced.status).toBe(200)
    expect(replaced.body.name.givenName).toBe("Johnny")
    expect(replaced.headers.ETag).toBe('W/"2"')

    const session = await w.signIn(id, ORG)
    const deactivated = await w.call(token, ORG, "PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: false } }] })
    expect(deactivated.status).toBe(200)
    expect(deactivated.body.active).toBe(false)
    expect(w.members.has(`${ORG}\n${id}`)).toBe(false)
    expect(await w.store.sessionEnded(session)).toBe(true)
    // The record stays, inactive: Okta reads it back.
    const after = await w.call(token, ORG, "GET", `/Users/${id}`)
    expect(after.body.active).toBe(false)
    expect(w.audits.map((a) => a.type)).toEqual(["user.created", "user.updated", "user.deactivated"])

    const reactivated = await w.call(token, ORG, "PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: true } }] })
    expect(reactivated.body.active).toBe(true)
    expect(w.members.get(`${ORG}\n${id}`)).toBe("member")
  })

  it("links an existing Portcullis user with the address instead of making a second one", async () => {
    await w.adapter.createUser!({ id: "existing-1", email: "jdoe@acme.com", emailVerified: null, name: "J" })
    const created = await w.call(token, ORG, "POST", "/Users", oktaUser())
    expect(created.status).toBe(201)
    expect(created.body.id).toBe("existing-1")
    expect(w.audits[0]).toMatchObject({ type: "user.created", details: { userId: "existing-1", linked: true } })
  })

  it("answers a second create of the userName with 409 uniqueness", async () => {
    await w.call(token, ORG, "POST", "/Users", oktaUser())
    const again = await w.call(token, ORG, "POST", "/Users", { ...oktaUser(), userName: "JDoe@ACME.com" })
    expect(again.status).toBe(409)
    expect(again.body).toEqual({ schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"], status: "409", scimType: "uniqueness", detail: expect.any(String) })
  })

  it("pages the users with startIndex and count, totalResults counting all", async () => {
    for (let i = 0; i < 5; i++) await w.call(token, ORG, "POST", "/Users", oktaUser(`user${i}@acme.com`))
    const all = (await w.call(token, ORG, "GET", "/Users")).body.Resources.map((r: any) => r.userName)
    expect([...all].sort()).toEqual(["user0@acme.com", "user1@acme.com", "user2@acme.com", "user3@acme.com", "user4@acme.com"])
    const page = await w.call(token, ORG, "GET", "/Users?startIndex=2&count=2")
    expect(page.body).toMatchObject({ totalResults: 5, startIndex: 2, itemsPerPage: 2 })
    expect(page.body.Resources.map((r: any) => r.userName)).toEqual(all.slice(1, 3))
    const tail = await w.call(token, ORG, "GET", "/Users?startIndex=5&count=100")
    expect(tail.body.Resources.map((r: any) => r.userName)).toEqual(all.slice(4))
    const countOnly = await w.call(token, ORG, "GET", "/Users?count=0")
    expect(countOnly.body).toMatchObject({ totalResults: 5, itemsPerPage: 0, Resources: [] })
  })
})

describe("Okta's group push", () => {
  it("creates a group, renames it, adds and removes members; roles follow the groups", async () => {
    const alice = (await w.call(token, ORG, "POST", "/Users", oktaUser("alice@acme.com"))).body.id
    const bob = (await w.call(token, ORG, "POST", "/Users", oktaUser("bob@acme.com"))).body.id

    const group = await w.call(token, ORG, "POST", "/Groups", { schemas: [GROUP_SCHEMA], displayName: "Engineering", members: [] })
    expect(group.status).toBe(201)
    const gid = group.body.id

    const renamed = await w.call(token, ORG, "PATCH", `/Groups/${gid}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { id: gid, displayName: "Portcullis Admins" } }] })
    expect(renamed.status).toBe(200)
    expect(renamed.body.displayName).toBe("Portcullis Admins")

    const added = await w.call(token, ORG, "PATCH", `/Groups/${gid}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: "add", path: "members", value: [{ value: alice, display: "alice@acme.com" }, { value: bob, display: "bob@acme.com" }] }],
    })
    expect(added.body.members.map((m: any) => m.value)).toEqual([alice, bob])
    expect(w.members.get(`${ORG}\n${alice}`)).toBe("admin")
    expect(w.members.get(`${ORG}\n${bob}`)).toBe("admin")
    const aliceRead = await w.call(token, ORG, "GET", `/Users/${alice}`)
    expect(aliceRead.body.groups).toEqual([{ value: gid, display: "Portcullis Admins", $ref: expect.stringContaining(`/Groups/${gid}`), type: "direct" }])

    const removed = await w.call(token, ORG, "PATCH", `/Groups/${gid}`, { schemas: [PATCH_OP], Operations: [{ op: "remove", path: `members[value eq "${alice}"]` }] })
    expect(removed.body.members.map((m: any) => m.value)).toEqual([bob])
    expect(w.members.get(`${ORG}\n${alice}`)).toBe("member")
    expect(w.members.get(`${ORG}\n${bob}`)).toBe("admin")

    const replaced = await w.call(token, ORG, "PUT", `/Groups/${gid}`, { schemas: [GROUP_SCHEMA], id: gid, displayName: "Portcullis Admins", members: [{ value: alice }] })
    expect(replaced.body.members.map((m: any) => m.value)).toEqual([alice])
    expect(w.members.get(`${ORG}\n${alice}`)).toBe("admin")
    expect(w.members.get(`${ORG}\n${bob}`)).toBe("member")

    const deleted = await w.call(token, ORG, "DELETE", `/Groups/${gid}`)
    expect(deleted.status).toBe(204)
    expect(w.members.get(`${ORG}\n${alice}`)).toBe("member")
    expect((await w.call(token, ORG, "GET", `/Groups/${gid}`)).status).toBe(404)
  })
})
