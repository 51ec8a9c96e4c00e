/**
 * Microsoft Entra ID's provisioning sequence, as "Tutorial: Develop and plan provisioning
 * for a SCIM endpoint" shows it: filter by userName, create with the enterprise extension,
 * PATCH with capitalised ops and `"value": "False"`, value paths such as
 * `emails[type eq "work"].value`, groups with `excludedAttributes=members` and member
 * Add/Remove as lists, then DELETE.
 */
import { beforeEach, describe, expect, it } from "vitest"
import { GROUP_SCHEMA, PATCH_OP, USER_SCHEMA, world, type World } from "./world.js"

const ORG = "org-a"
const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"
const userName = "Test_User_dfeef4c5-5681-4387-b016-bdf221e82081"
const email = "Test_User_11bb11bb-cc22-dd33-ee44-55ff55ff55ff@acme.com"

const entraUser = () => ({
  schemas: [USER_SCHEMA, ENTERPRISE],
  externalId: "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
  userName,
  active: true,
  emails: [{ primary: true, type: "work", value: email }],
  meta: { resourceType: "User" },
  name: { formatted: "givenName familyName", familyName: "familyName", givenName: "givenName" },
  roles: [],
  [ENTERPRISE]: { department: "Sales", employeeNumber: "100009" },
})

const q = (filter: string) => `filter=${encodeURIComponent(filter)}`

let w: World
let token: string
beforeEach(async () => {
  w = world()
  token = (await w.token(ORG)).token
})

describe("Entra ID's user lifecycle", () => {
  it("filters, creates, patches with Replace and \"False\", and deletes", async () => {
    const none = await w.call(token, ORG, "GET", `/Users?${q(`userName eq "${userName}"`)}`)
    expect(none.body.totalResults).toBe(0)

    const created = await w.call(token, ORG, "POST", "/Users", entraUser())
    expect(created.status).toBe(201)
    const id = created.body.id as string
    expect(created.body.schemas).toEqual([USER_SCHEMA, ENTERPRISE])
    expect(created.body[ENTERPRISE]).toEqual({ department: "Sales", employeeNumber: "100009" })
    // The work email (of a verified domain) made the account; the userName is Entra's UPN-like id.
    expect((await w.adapter.getUserByEmail!(email))?.id).toBe(id)
    expect(w.members.get(`${ORG}\n${id}`)).toBe("member")

    const one = await w.call(token, ORG, "GET", `/Users?${q(`userName eq "${userName}"`)}`)
    expect(one.body.Resources.map((r: any) => r.id)).toEqual([id])
    const byEmail = await w.call(token, ORG, "GET", `/Users?${q(`emails[type eq "work"].value eq "${email}"`)}`)
    expect(byEmail.body.totalResults).toBe(1)
    const byExternal = await w.call(token, ORG, "GET", `/Users?${q('externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"')}`)
    expect(byExternal.body.totalResults).toBe(1)

    const patched = await w.call(token, ORG, "PATCH", `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: "Replace", path: 'emails[type eq "work"].value', value: "updatedEmail@acme.com" },
        { op: "Replace", path: "name.familyName", value: "updatedFamilyName" },
        { op: "Add", path: `${ENTERPRISE}:department`, value: "Marketing" },
        { op: "Add", path: 'phoneNumbers[type eq "mobile"].value', value: "+1 555 0100" },
      ],
    })
    expect(patched.status).toBe(200)
    expect(patched.body.emails).toEqual([{ primary: true, type: "work", value: "updatedEmail@acme.com" }])
    expect(patched.body.name).toEqual({ formatted: "givenName familyName", familyName: "updatedFamilyName", givenName: "givenName" })
    expect(patched.body[ENTERPRISE].department).toBe("Marketing")
    expect(patched.body.phoneNumbers).toEqual([{ type: "mobile", value: "+1 555 0100" }])

    const session = await w.signIn(id, ORG)
    const disabled = await w.call(token, ORG, "PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "Replace", path: "active", value: "False" }] })
    expect(disabled.status).toBe(200)
    expect(disabled.body.active).toBe(false)
    expect(w.members.has(`${ORG}\n${id}`)).toBe(false)
    expect(await w.store.sessionEnded(session)).toBe(true)
    const stillThere = await w.call(token, ORG, "GET", `/Users?${q(`userName eq "${userName}"`)}`)
    expect(stillThere.body.Resources[0].active).toBe(false)

    const enabled = await w.call(token, ORG, "PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "Replace", path: "active", value: "True" }] })
    expect(enabled.body.active).toBe(true)
    expect(w.members.get(`${ORG}\n${id}`)).toBe("member")

    const session2 = await w.signIn(id, ORG)
    const deleted = await w.call(token, ORG, "DELETE", `/Users/${id}`)
    expect(deleted.status).toBe(204)
    expect(deleted.body).toBeUndefined()
    expect(w.members.has(`${ORG}\n${id}`)).toBe(false)
    expect(await w.store.sessionEnded(session2)).toBe(true)
    expect(await w.store.getScimUser(ORG, id)).toBeNull()
    const gone = await w.call(token, ORG, "GET", `/Users/${id}`)
    expect(gone.status).toBe(404)
    expect(gone.body).toMatchObject({ schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"], status: "404" })
  })

  it("ends the user's sessions everywhere when they belong to no other organization, and only here when they do", async () => {
    const tokenB = (await w.token("org-b")).token
    const id = (await w.call(token, ORG, "POST", "/Users", entraUser())).body.id
    const here = await w.signIn(id, ORG)
    const there = await w.signIn(id, "org-b")
    // A member of org-b too (invited there): deprovisioning in org-a leaves org-b's session.
    w.members.set(`org-b\n${id}`, "member")
    await w.call(token, ORG, "PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "Replace", path: "active", value: "False" }] })
    expect(await w.store.sessionEnded(here)).toBe(true)
    expect(await w.store.sessionEnded(there)).toBe(false)
    // No membership left anywhere: every session ends.
    w.members.delete(`org-b\n${id}`)
    await w.call(token, ORG, "DELETE", `/Users/${id}`)
    expect(await w.store.sessionEnded(there)).toBe(true)
    expect(tokenB).toMatch(/^scim_/)
  })

  it("accepts Entra's patch without a path and a URN-qualified attribute inside it", async () => {
    const id = (await w.call(token, ORG, "POST", "/Users", entraUser())).body.id
    const res = await w.call(token, ORG, "PATCH", `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: "Replace", value: { displayName: "New Name", [`${ENTERPRISE}:employeeNumber`]: "200", "name.givenName": "Given" } }],
    })
    expect(res.status).toBe(200)
    expect(res.body.displayName).toBe("New Name")
    expect(res.body[ENTERPRISE].employeeNumber).toBe("200")
    expect(res.body.name.givenName).toBe("Given")
  })
})

describe("Entra ID's groups", () => {
  it("creates, reads without members, adds and removes member lists, renames and deletes", async () => {
    const id = (await w.call(token, ORG, "POST", "/Users", entraUser())).body.id

    const created = await w.call(token, ORG, "POST", "/Groups", { externalId: "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159", displayName: "Group1", meta: { resourceType: "Group" }, schemas: [GROUP_SCHEMA] })
    expect(created.status).toBe(201)
    const gid = created.body.id
    expect(created.headers.Location).toBe(`https://app.example/auth/sso/scim/conn-${ORG}/v2/Groups/${gid}`)

    const found = await w.call(token, ORG, "GET", `/Groups?excludedAttributes=members&${q('displayName eq "Group1"')}`)
    expect(found.body.totalResults).toBe(1)
    expect(found.body.Resources[0]).toMatchObject({ id: gid, displayName: "Group1", externalId: "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159" })

    const add = await w.call(token, ORG, "PATCH", `/Groups/${gid}`, { schemas: [PATCH_OP], Operations: [{ op: "Add", path: "members", value: [{ value: id }] }] })
    expect(add.status).toBe(200)
    const read = await w.call(token, ORG, "GET", `/Groups/${gid}?excludedAttributes=members`)
    expect(read.body).not.toHaveProperty("members")
    expect(read.headers.ETag).toBe('W/"2"')
    const withMembers = await w.call(token, ORG, "GET", `/Groups/${gid}`)
    expect(withMembers.body.members.map((m: any) => m.value)).toEqual([id])

    const rename = await w.call(token, ORG, "PATCH", `/Groups/${gid}`, { schemas: [PATCH_OP], Operations: [{ op: "Replace", path: "displayName", value: "Portcullis Admins" }] })
    expect(rename.body.displayName).toBe("Portcullis Admins")
    expect(w.members.get(`${ORG}\n${id}`)).toBe("admin")

    const remove = await w.call(token, ORG, "PATCH", `/Groups/${gid}`, { schemas: [PATCH_OP], Operations: [{ op: "Remove", path: "members", value: [{ value: id }] }] })
    expect(remove.body).not.toHaveProperty("members")
    expect(w.members.get(`${ORG}\n${id}`)).toBe("member")

    expect((await w.call(token, ORG, "DELETE", `/Groups/${gid}`)).status).toBe(204)
    expect((await w.call(token, ORG, "DELETE", `/Users/${id}`)).status).toBe(204)
  })
})

describe("discovery", () => {
  it("serves ServiceProviderConfig, ResourceTypes and Schemas", async () => {
    const config = await w.call(token, ORG, "GET", "/ServiceProviderConfig")
    expect(config.body).toMatchObject({ patch: { supported: true }, filter: { supported: true, maxResults: 200 }, etag: { supported: true }, bulk: { supported: false } })
    const types = await w.call(token, ORG, "GET", "/ResourceTypes")
    expect(types.body.Resources.map((r: any) => r.endpoint)).toEqual(["/Users", "/Groups"])
    const schemas = await w.call(token, ORG, "GET", "/Schemas")
    expect(schemas.body.Resources.map((r: any) => r.id)).toEqual([USER_SCHEMA, ENTERPRISE, GROUP_SCHEMA])
    const user = await w.call(token, ORG, "GET", `/Schemas/${USER_SCHEMA}`)
    expect(user.body.attributes.find((a: any) => a.name === "userName")).toMatchObject({ required: true, uniqueness: "server" })
    expect((await w.call(token, ORG, "GET", "/Schemas/urn:nope")).status).toBe(404)
  })
})
