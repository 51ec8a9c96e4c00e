/**
 * The attributes this server knows (RFC 7643 §4 and the enterprise extension), with what
 * filters, PATCH paths and stored records need of them: canonical spelling (attribute names
 * are case-insensitive), type, multi-valuedness, case-exactness and mutability. One table
 * feeds the parser, the normaliser and `/Schemas`.
 * @module
 */

export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User"
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group"
export const ENTERPRISE_SCHEMA = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"

/** One attribute's definition (RFC 7643 §7's fields that matter here). */
export interface AttributeDef {
  name: string
  type: "string" | "boolean" | "complex" | "dateTime" | "reference" | "integer"
  multiValued?: boolean
  caseExact?: boolean
  mutability?: "readOnly" | "readWrite" | "immutable"
  required?: boolean
  uniqueness?: "none" | "server"
  subAttributes?: AttributeDef[]
}

/** A resource type: its core schema's attributes, and its extensions' (by schema URN). */
export interface ResourceSchema {
  name: "User" | "Group"
  schema: string
  attributes: AttributeDef[]
  extensions: Record<string, AttributeDef[]>
}

const s = (name: string, more: Partial<AttributeDef> = {}): AttributeDef => ({ name, type: "string", ...more })
const multi = (name: string, subs: AttributeDef[], more: Partial<AttributeDef> = {}): AttributeDef => ({ name, type: "complex", multiValued: true, subAttributes: subs, ...more })
const typedValue = () => [s("value"), s("display"), s("type"), { name: "primary", type: "boolean" } as AttributeDef]

const meta: AttributeDef = {
  name: "meta",
  type: "complex",
  mutability: "readOnly",
  subAttributes: [s("resourceType", { caseExact: true }), { name: "created", type: "dateTime" }, { name: "lastModified", type: "dateTime" }, s("location", { type: "reference" }), s("version", { caseExact: true })],
}
const common = [s("id", { caseExact: true, mutability: "readOnly" }), s("externalId", { caseExact: true }), meta]

export const USER: ResourceSchema = {
  name: "User",
  schema: USER_SCHEMA,
  attributes: [
    ...common,
    s("userName", { required: true, uniqueness: "server" }),
    { name: "name", type: "complex", subAttributes: ["formatted", "familyName", "givenName", "middleName", "honorificPrefix", "honorificSuffix"].map((n) => s(n)) },
    s("displayName"),
    s("nickName"),
    s("profileUrl", { type: "reference" }),
    s("title"),
    s("userType"),
    s("preferredLanguage"),
    s("locale"),
    s("timezone"),
    { name: "active", type: "boolean" },
    multi("emails", typedValue()),
    multi("phoneNumbers", typedValue()),
    multi("ims", typedValue()),
    multi("photos", typedValue()),
    multi("addresses", [...["formatted", "streetAddress", "locality", "region", "postalCode", "country", "type"].map((n) => s(n)), { name: "primary", type: "boolean" }]),
    multi("groups", [s("value", { caseExact: true }), s("$ref", { type: "reference" }), s("display"), s("type")], { mutability: "readOnly" }),
    multi("entitlements", typedValue()),
    multi("roles", typedValue()),
  ],
  extensions: {
    [ENTERPRISE_SCHEMA]: [
      s("employeeNumber"),
      s("costCenter"),
      s("organization"),
      s("division"),
      s("department"),
      { name: "manager", type: "complex", subAttributes: [s("value", { caseExact: true }), s("$ref", { type: "reference" }), s("displayName")] },
    ],
  },
}

export const GROUP: ResourceSchema = {
  name: "Group",
  schema: GROUP_SCHEMA,
  attributes: [...common, s("displayName", { required: true }), multi("members", [s("value", { caseExact: true }), s("$ref", { type: "reference" }), s("display"), s("type")])],
  extensions: {},
}

/** An attribute named in a filter or a PATCH path, resolved against a schema. */
export interface AttributeRef {
  /** The extension schema URN it belongs to; `null` for the core schema. */
  extension: string | null
  def: AttributeDef
  /** A sub-attribute (`name.givenName`, `emails.value`). */
  sub: AttributeDef | null
}

const findDef = (defs: readonly AttributeDef[], name: string) => defs.find((d) => d.name.toLowerCase() === name.toLowerCase()) ?? null

/**
 * Resolves `userName`, `name.givenName`, `emails.value` or a URN-qualified
 * `urn:…:enterprise:2.0:User:department` to its definitions; `null` when unknown.
 */
export function resolveAttribute(schema: ResourceSchema, text: string): AttributeRef | null {
  let extension: string | null = null
  let rest = text
  if (text.toLowerCase().startsWith("urn:")) {
    const urns = [schema.schema, ...Object.keys(schema.extensions)]
    const urn = urns.find((u) => text.toLowerCase().startsWith(u.toLowerCase() + ":"))
    if (!urn) return null
    rest = text.slice(urn.length + 1)
    extension = urn === schema.schema ? null : urn
  }
  const [name, sub, ...more] = rest.split(".")
  if (!name || more.length > 0) return null
  const def = findDef(extension ? schema.extensions[extension]! : schema.attributes, name)
  if (!def) return null
  if (sub === undefined) return { extension, def, sub: null }
  const subDef = def.subAttributes ? findDef(def.subAttributes, sub) : null
  return subDef ? { extension, def, sub: subDef } : null
}

/** A sub-attribute of `parent` by name (inside `emails[type eq "work"]`), or `null`. */
export function resolveSubAttribute(parent: AttributeDef, name: string): AttributeDef | null {
  return parent.subAttributes ? findDef(parent.subAttributes, name) : null
}

/** Reads `"True"`/`"false"` as booleans: Entra ID sends `"value": "False"` for `active`. */
export function toBoolean(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value
  if (typeof value === "string" && /^(true|false)$/i.test(value)) return value.toLowerCase() === "true"
  return undefined
}

/**
 * A client's attribute value in canonical form: known names spelled as the schema does,
 * booleans as booleans, read-only and unknown attributes dropped; `undefined` for a value
 * that does not fit its definition (a string where a list is due).
 */
export function normalizeValue(def: AttributeDef, value: unknown): unknown {
  if (value === null || value === undefined) return undefined
  if (def.multiValued) {
    const items = Array.isArray(value) ? value : [value]
    const out = items.map((item) => normalizeSingle(def, item)).filter((v) => v !== undefined)
    return out.length > 0 ? out : undefined
  }
  return normalizeSingle(def, value)
}

function normalizeSingle(def: AttributeDef, value: unknown): unknown {
  switch (def.type) {
    case "boolean":
      return toBoolean(value)
    case "complex": {
      // A bare string in a multi-valued complex attribute is its `value` (`members: ["id"]` from lax clients).
      if (typeof value === "string" && def.multiValued) return { value }
      if (!value || typeof value !== "object" || Array.isArray(value)) return undefined
      const out: Record<string, unknown> = {}
      for (const [key, v] of Object.entries(value)) {
        const sub = findDef(def.subAttributes ?? [], key)
        if (!sub) continue
        const n = normalizeValue(sub, v)
        if (n !== undefined) out[sub.name] = n
      }
      return Object.keys(out).length > 0 ? out : undefined
    }
    case "integer":
      return typeof value === "number" && Number.isInteger(value) ? value : undefined
    default:
      if (typeof value === "string") return value
      // Numbers and booleans where a string is due are kept as their text (an employee number sent as 42).
      if (typeof value === "number" || typeof value === "boolean") return String(value)
      return undefined
  }
}

/**
 * A resource body (POST, PUT, or the result of PATCH) in canonical form: the core
 * attributes at the top, each known extension's under its URN; `id`, `meta` and
 * other read-only attributes dropped, as RFC 7643 §2.2 has clients' values for them ignored.
 */
export function normalizeResource(schema: ResourceSchema, body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(body)) {
    const extension = Object.keys(schema.extensions).find((u) => u.toLowerCase() === key.toLowerCase())
    if (extension) {
      if (!value || typeof value !== "object" || Array.isArray(value)) continue
      const ext: Record<string, unknown> = {}
      for (const [k, v] of Object.entries(value)) {
        const def = findDef(schema.extensions[extension]!, k)
        const n = def ? normalizeValue(def, v) : undefined
        if (def && n !== undefined) ext[def.name] = n
      }
      if (Object.keys(ext).length > 0) out[extension] = ext
      continue
    }
    const def = findDef(schema.attributes, key)
    if (!def || def.mutability === "readOnly") continue
    const n = normalizeValue(def, value)
    if (n !== undefined) out[def.name] = n
  }
  return out
}
