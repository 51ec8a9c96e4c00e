/**
 * SCIM filters (RFC 7644 §3.4.2.2) and PATCH paths: what parses, what matches, and what a
 * hostile client gets — a 400 `invalidFilter`/`invalidPath`, never a hang or a guess.
 */
import { describe, expect, it } from "vitest"
import { ScimError } from "../../src/scim/errors.js"
import { matches, parseFilter } from "../../src/scim/filter.js"
import { applyPatch, parsePath, readOperations } from "../../src/scim/patch.js"
import { GROUP, USER } from "../../src/scim/schema.js"

const ada = {
  userName: "Ada@Acme.com",
  externalId: "ExT-1",
  active: true,
  displayName: "Ada Lovelace",
  name: { givenName: "Ada", familyName: "Lovelace" },
  emails: [
    { value: "ada@acme.com", type: "work", primary: true },
    { value: "ada@home.example", type: "home" },
  ],
  "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { department: "Engineering" },
  meta: { created: "2026-01-02T00:00:00.000Z" },
}

const test = (filter: string) => matches(ada, parseFilter(filter, USER))

const refusal = (fn: () => unknown): ScimError => {
  try {
    fn()
  } catch (error) {
    if (error instanceof ScimError) return error
    throw error
  }
  throw new Error("expected a refusal")
}

describe("filter operators", () => {
  it("eq compares userName case-insensitively and externalId case-exactly", () => {
    expect(test('userName eq "ada@acme.com"')).toBe(true)
    expect(test('externalId eq "ExT-1"')).toBe(true)
    expect(test('externalId eq "ext-1"')).toBe(false)
  })

  it("co, sw, ew, ne, pr, gt and booleans", () => {
    expect(test('displayName co "love"')).toBe(true)
    expect(test('displayName sw "Ada"')).toBe(true)
    expect(test('displayName ew "lace"')).toBe(true)
    expect(test('displayName ne "Ada Lovelace"')).toBe(false)
    expect(test("title pr")).toBe(false)
    expect(test("name.givenName pr")).toBe(true)
    expect(test('meta.created gt "2026-01-01T00:00:00Z"')).toBe(true)
    expect(test("active eq true")).toBe(true)
    expect(test('active eq "false"')).toBe(false)
  })

  it("and binds tighter than or; not and parentheses", () => {
    expect(test('userName eq "x" or displayName sw "Ada" and active eq true')).toBe(true)
    expect(test('(userName eq "x" or displayName sw "Ada") and active eq false')).toBe(false)
    expect(test('not (userName eq "x")')).toBe(true)
  })

  it("reads multi-valued attributes: emails.value, emails[type eq \"work\"].value, and value filters", () => {
    expect(test('emails.value eq "ada@home.example"')).toBe(true)
    expect(test('emails[type eq "work"].value eq "ada@acme.com"')).toBe(true)
    expect(test('emails[type eq "work"].value eq "ada@home.example"')).toBe(false)
    expect(test('emails[type eq "work" and value co "acme"]')).toBe(true)
    expect(test('emails eq "ada@acme.com"')).toBe(true)
  })

  it("reads the enterprise extension by its URN", () => {
    expect(test('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department eq "engineering"')).toBe(true)
  })

  it("groups filter by displayName and member value", () => {
    const group = { displayName: "Admins", members: [{ value: "u1" }] }
    expect(matches(group, parseFilter('displayName eq "admins"', GROUP))).toBe(true)
    expect(matches(group, parseFilter('members[value eq "u1"]', GROUP))).toBe(true)
    expect(matches(group, parseFilter('members.value eq "U1"', GROUP))).toBe(false)
  })
})

describe("hostile filters", () => {
  it("refuses unknown attributes and operators with 400 invalidFilter", () => {
    for (const f of ['password eq "x"', 'userName like "x"', 'emails[nope eq "x"]', 'urn:evil:User:x eq "1"', 'name.nope eq "x"', "constructor pr", "__proto__ pr"]) {
      const e = refusal(() => parseFilter(f, USER))
      expect(e.status).toBe(400)
      expect(e.scimType).toBe("invalidFilter")
    }
  })

  it("refuses malformed filters", () => {
    for (const f of ["", 'userName eq', 'userName eq "x', '(userName eq "x"', 'userName eq "x")', 'userName eq "x" and', 'emails[type eq "work"', "userName eq x", 'userName eq "x" "y"', "not userName pr", 'emails[type eq "w"][value pr]', 'userName eq "\\q"']) {
      expect(refusal(() => parseFilter(f, USER)).scimType).toBe("invalidFilter")
    }
  })

  it("refuses deep nesting quickly, without overflowing the stack", () => {
    const deep = "(".repeat(5000) + 'userName eq "x"' + ")".repeat(5000)
    const start = performance.now()
    expect(refusal(() => parseFilter(deep.slice(0, 1000), USER)).scimType).toBe("invalidFilter")
    expect(refusal(() => parseFilter("not (".repeat(50) + "userName pr" + ")".repeat(50), USER)).message).toBe("The filter is nested too deeply")
    expect(refusal(() => parseFilter("(".repeat(9) + "userName pr" + ")".repeat(9), USER)).message).toBe("The filter is nested too deeply")
    expect(parseFilter("(".repeat(8) + "userName pr" + ")".repeat(8), USER).kind).toBe("present")
    expect(refusal(() => parseFilter(deep, USER)).status).toBe(400)
    expect(performance.now() - start).toBeLessThan(500)
  })

  it("refuses a 10,000-character filter and one with too many comparisons", () => {
    const long = `userName eq "${"a".repeat(10_000)}"`
    expect(refusal(() => parseFilter(long, USER)).message).toContain("longer than")
    const many = Array.from({ length: 40 }, (_, i) => `userName eq "u${i}"`).join(" or ")
    expect(refusal(() => parseFilter(many, USER)).message).toContain("too many")
  })
})

describe("PATCH paths and operations", () => {
  const ops = (...operations: object[]) => readOperations({ schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: operations })

  it("parses attribute, sub-attribute, value-filter and URN paths", () => {
    expect(parsePath("name.givenName", USER).attr.sub?.name).toBe("givenName")
    const p = parsePath('emails[type eq "work"].value', USER)
    expect(p.after?.name).toBe("value")
    expect(parsePath("urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.value", USER).attr.extension).toContain("enterprise")
    expect(refusal(() => parsePath("nope", USER)).scimType).toBe("invalidPath")
    expect(refusal(() => parsePath('members[value eq "a"].nope', GROUP)).scimType).toBe("invalidPath")
  })

  it("reads capitalised ops and refuses unknown ones, empty lists and too many operations", () => {
    expect(ops({ op: "Replace", path: "active", value: "False" })[0]!.op).toBe("replace")
    expect(refusal(() => ops({ op: "move", path: "active" })).scimType).toBe("invalidSyntax")
    expect(refusal(() => readOperations({ Operations: [] })).scimType).toBe("invalidSyntax")
    expect(refusal(() => readOperations([{ op: "add" }])).scimType).toBe("invalidSyntax")
    const many = { Operations: Array.from({ length: 201 }, () => ({ op: "add", path: "title", value: "x" })) }
    expect(refusal(() => readOperations(many)).status).toBe(413)
  })

  it("coerces Entra's \"False\" and sets nested values", () => {
    const next = applyPatch(USER, { userName: "a", active: true }, ops({ op: "Replace", path: "active", value: "False" }, { op: "add", path: "name.givenName", value: "Ada" }))
    expect(next).toEqual({ userName: "a", active: false, name: { givenName: "Ada" } })
  })

  it("refuses read-only paths and values of the wrong type", () => {
    expect(refusal(() => applyPatch(USER, { userName: "a" }, ops({ op: "replace", path: "id", value: "x" }))).scimType).toBe("mutability")
    expect(refusal(() => applyPatch(USER, { userName: "a" }, ops({ op: "replace", path: "active", value: "maybe" }))).scimType).toBe("invalidValue")
    expect(refusal(() => applyPatch(USER, { userName: "a" }, ops({ op: "remove" }))).scimType).toBe("noTarget")
  })

  it("removes members by filter and by value list, and adds without duplicates", () => {
    const group = { displayName: "G", members: [{ value: "a" }, { value: "b" }] }
    expect(applyPatch(GROUP, group, ops({ op: "remove", path: 'members[value eq "a"]' })).members).toEqual([{ value: "b" }])
    expect(applyPatch(GROUP, group, ops({ op: "Remove", path: "members", value: [{ value: "b" }] })).members).toEqual([{ value: "a" }])
    expect(applyPatch(GROUP, group, ops({ op: "Add", path: "members", value: [{ value: "a" }, { value: "c" }] })).members).toEqual([{ value: "a" }, { value: "b" }, { value: "c" }])
    expect(applyPatch(GROUP, group, ops({ op: "remove", path: "members" }))).toEqual({ displayName: "G" })
    // A removal whose value names no member (a malformed value) removes nothing, never the whole list.
    expect(applyPatch(GROUP, group, ops({ op: "Remove", path: "members", value: { value: "zzz" } })).members).toEqual(group.members)
    expect(applyPatch(GROUP, group, ops({ op: "Remove", path: "members", value: 42 })).members).toEqual(group.members)
  })

  it("keeps one primary email when another is added as primary", () => {
    const next = applyPatch(USER, { userName: "a", emails: [{ value: "a@acme.com", primary: true }] }, ops({ op: "add", path: "emails", value: [{ value: "b@acme.com", primary: "True" }] }))
    expect(next.emails).toEqual([{ value: "a@acme.com", primary: false }, { value: "b@acme.com", primary: true }])
  })
})
