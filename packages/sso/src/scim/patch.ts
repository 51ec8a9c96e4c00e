/**
 * SCIM PATCH (RFC 7644 §3.5.2) on a resource in canonical JSON form, as Okta and Entra ID
 * send it: `op` in any case (`Replace`), operations with no path whose value is an object of
 * attributes, value paths (`emails[type eq "work"].value`, `members[value eq "…"]`), and
 * Entra's `remove` of `members` with a list of values. Returns a new resource; the caller
 * validates it as a whole and stores it, so a failing operation leaves nothing half-done.
 * @module
 */
import { badRequest, ScimError } from "./errors.js"
import { FilterParser, matches, tokenize, type Filter } from "./filter.js"
import { normalizeValue, resolveAttribute, type AttributeDef, type AttributeRef, type ResourceSchema } from "./schema.js"

/** A PATCH request with more operations is refused (413); IdPs send a handful. */
export const MAX_OPERATIONS = 200
const MAX_PATH_LENGTH = 512

type Json = Record<string, unknown>

/** A parsed PATCH path: an attribute, optionally a value filter on it, and a sub-attribute after the filter. */
export interface PatchPath {
  attr: AttributeRef
  filter: Filter | null
  /** The sub-attribute after a value filter (`.value` in `emails[type eq "work"].value`). */
  after: AttributeDef | null
}

/** Parses a PATCH `path`; a 400 `invalidPath` when it names nothing this schema has. */
export function parsePath(text: string, schema: ResourceSchema): PatchPath {
  const error = (detail: string) => badRequest("invalidPath", detail)
  if (text.length > MAX_PATH_LENGTH) throw error("The path is too long")
  const tokens = tokenize(text, error)
  const parser = new FilterParser(tokens, schema, error)
  const first = parser.next()
  if (first?.t !== "word") throw error("The path must start with an attribute name")
  const attr = parser.attribute(first.v, null)
  let filter: Filter | null = null
  let after: AttributeDef | null = null
  if (parser.peek()?.t === "[") {
    if (!attr.def.multiValued || attr.sub) throw error(`${first.v} is not a multi-valued attribute`)
    parser.next()
    filter = parser.parseFilter(attr.def, 1)
    parser.expect("]")
    const rest = parser.peek()
    if (rest?.t === "word" && rest.v.startsWith(".")) {
      parser.next()
      after = attr.def.subAttributes?.find((d) => d.name.toLowerCase() === rest.v.slice(1).toLowerCase()) ?? null
      if (!after) throw error(`Unknown sub-attribute ${JSON.stringify(rest.v.slice(1, 64))}`)
    }
  }
  if (!parser.done) throw error("Unexpected text after the path")
  return { attr, filter, after }
}

/** One PATCH operation as sent. */
interface Operation {
  op: "add" | "replace" | "remove"
  path?: string
  value?: unknown
}

/** Checks a PATCH body's shape (PatchOp schema, Operations) and reads its operations. */
export function readOperations(body: unknown): Operation[] {
  if (!body || typeof body !== "object" || Array.isArray(body)) throw badRequest("invalidSyntax", "The body must be a PatchOp object")
  const ops = (body as Json).Operations ?? (body as Json).operations
  if (!Array.isArray(ops) || ops.length === 0) throw badRequest("invalidSyntax", "Operations must be a non-empty list")
  if (ops.length > MAX_OPERATIONS) throw new ScimError(413, `At most ${MAX_OPERATIONS} operations per request`)
  return ops.map((raw) => {
    if (!raw || typeof raw !== "object") throw badRequest("invalidSyntax", "Each operation must be an object")
    const { op, path, value } = raw as Json
    // Entra ID capitalises ops (`Replace`, `Add`, `Remove`).
    const name = typeof op === "string" ? op.toLowerCase() : ""
    if (name !== "add" && name !== "replace" && name !== "remove") throw badRequest("invalidSyntax", `Unknown op ${JSON.stringify(String(op).slice(0, 16))}`)
    if (path !== undefined && typeof path !== "string") throw badRequest("invalidPath", "path must be a string")
    return { op: name, path: path === "" ? undefined : (path as string | undefined), value }
  })
}

/**
 * Applies PATCH operations to a copy of `resource` (canonical JSON, as the store renders
 * it) and returns the copy.
 *
 * @example
 * ```ts
 * const next = applyPatch(USER, current, readOperations({ Operations: [{ op: "Replace", path: "active", value: "False" }] }))
 * ```
 */
export function applyPatch(schema: ResourceSchema, resource: Json, operations: Operation[]): Json {
  const out = structuredClone(resource)
  for (const operation of operations) {
    if (operation.path === undefined) applyWithoutPath(schema, out, operation)
    else applyAt(out, parsePath(operation.path, schema), operation.op, operation.value, true)
  }
  return out
}

/** `{"op":"replace","value":{"active":false}}`: each key of the value is a path of its own. */
function applyWithoutPath(schema: ResourceSchema, resource: Json, operation: Operation): void {
  if (operation.op === "remove") throw badRequest("noTarget", "remove needs a path")
  const value = operation.value
  if (!value || typeof value !== "object" || Array.isArray(value)) throw badRequest("invalidValue", "An operation without a path needs an object value")
  for (const [key, v] of Object.entries(value)) {
    const extension = Object.keys(schema.extensions).find((u) => u.toLowerCase() === key.toLowerCase())
    if (extension && v && typeof v === "object" && !Array.isArray(v)) {
      for (const [k, w] of Object.entries(v)) {
        const attr = resolveAttribute(schema, `${extension}:${k}`)
        if (attr) applyAt(resource, { attr, filter: null, after: null }, operation.op, w, false)
      }
      continue
    }
    const attr = resolveAttribute(schema, key)
    // Unknown keys are ignored as in a POST, and so are read-only ones: Okta sends the group's `id` with its new name.
    if (!attr || attr.def.mutability === "readOnly") continue
    applyAt(resource, { attr, filter: null, after: null }, operation.op, v, false)
  }
}

function holderOf(resource: Json, attr: AttributeRef, create: boolean): Json | undefined {
  if (!attr.extension) return resource
  const existing = resource[attr.extension]
  if (existing && typeof existing === "object") return existing as Json
  if (!create) return undefined
  const made: Json = {}
  resource[attr.extension] = made
  return made
}

const sameItem = (a: unknown, b: unknown) => {
  if (a && b && typeof a === "object" && typeof b === "object" && "value" in a && "value" in b) return (a as Json).value === (b as Json).value
  return JSON.stringify(a) === JSON.stringify(b)
}

function normalized(def: AttributeDef, value: unknown): unknown {
  const n = normalizeValue(def, value)
  if (n === undefined && value !== null && value !== undefined && !(Array.isArray(value) && value.length === 0)) {
    throw badRequest("invalidValue", `The value for ${def.name} is not a valid ${def.multiValued ? "list" : def.type}`)
  }
  return n
}

function applyAt(resource: Json, path: PatchPath, op: Operation["op"], value: unknown, explicit: boolean): void {
  const { attr, filter, after } = path
  if (attr.def.mutability === "readOnly" || attr.sub?.mutability === "readOnly") {
    if (explicit) throw badRequest("mutability", `${attr.def.name} cannot be changed`)
    return
  }
  const holder = holderOf(resource, attr, op !== "remove")
  if (!holder) return
  const name = attr.def.name

  if (filter) {
    const items = (Array.isArray(holder[name]) ? (holder[name] as unknown[]) : []).filter((i): i is Json => !!i && typeof i === "object")
    const hit = items.filter((item) => matches(item, filter))
    if (op === "remove") {
      if (after) for (const item of hit) delete item[after.name]
      else holder[name] = items.filter((item) => !hit.includes(item))
    } else if (after) {
      const v = normalized(after, value)
      if (hit.length === 0) {
        // Entra ID replaces `emails[type eq "work"].value` on a user who has no work email yet: make the element.
        const seed = seedFromFilter(filter)
        if (!seed) throw badRequest("noTarget", `No ${name} element matches the path's filter`)
        if (v !== undefined) items.push({ ...seed, [after.name]: v })
      } else {
        for (const item of hit) {
          if (v === undefined) delete item[after.name]
          else item[after.name] = v
        }
      }
      holder[name] = items
    } else {
      const v = normalized({ ...attr.def, multiValued: false }, value) as Json | undefined
      if (!v) throw badRequest("invalidValue", `The value for ${name}[…] must be an object`)
      if (hit.length === 0) throw badRequest("noTarget", `No ${name} element matches the path's filter`)
      for (const item of hit) Object.assign(item, v)
      holder[name] = items
    }
    tidy(holder, name)
    tidyExtension(resource, attr)
    return
  }

  if (attr.sub) {
    const sub = attr.sub
    if (attr.def.multiValued) {
      const items = (Array.isArray(holder[name]) ? (holder[name] as Json[]) : []).filter((i) => !!i && typeof i === "object")
      if (op === "remove") for (const item of items) delete item[sub.name]
      else {
        const v = normalized(sub, value)
        if (items.length === 0 && v !== undefined) items.push({ [sub.name]: v })
        for (const item of items) v === undefined ? delete item[sub.name] : (item[sub.name] = v)
      }
      holder[name] = items
    } else {
      const current = holder[name] && typeof holder[name] === "object" ? (holder[name] as Json) : {}
      const v = op === "remove" ? undefined : normalized(sub, value)
      if (v === undefined) delete current[sub.name]
      else current[sub.name] = v
      holder[name] = current
    }
    tidy(holder, name)
    tidyExtension(resource, attr)
    return
  }

  if (op === "remove") {
    if (attr.def.multiValued && value !== undefined && value !== null) {
      // Entra ID removes members as `{"op":"Remove","path":"members","value":[{"value":"<id>"}]}`: only those
      // go. A value that names nothing removes nothing — never the whole list.
      const gone = (normalizeValue(attr.def, value) as unknown[] | undefined) ?? []
      const items = Array.isArray(holder[name]) ? (holder[name] as unknown[]) : []
      holder[name] = items.filter((item) => !gone.some((g) => sameItem(item, g)))
    } else {
      delete holder[name]
    }
  } else if (attr.def.multiValued) {
    const v = (normalized(attr.def, value) as unknown[] | undefined) ?? []
    if (op === "replace") holder[name] = dedupe(v)
    else holder[name] = dedupe([...(Array.isArray(holder[name]) ? (holder[name] as unknown[]) : []), ...v])
  } else if (attr.def.type === "complex") {
    const v = normalized(attr.def, value) as Json | undefined
    if (v === undefined) delete holder[name]
    else holder[name] = { ...(holder[name] && typeof holder[name] === "object" ? (holder[name] as Json) : {}), ...v }
  } else {
    const v = normalized(attr.def, value)
    if (v === undefined) delete holder[name]
    else holder[name] = v
  }
  tidy(holder, name)
  tidyExtension(resource, attr)
}

/**
 * Later items win over earlier ones with the same `value` (a re-added member is one member),
 * and only the last item marked primary stays primary (RFC 7643 §2.4: at most one).
 */
function dedupe(items: unknown[]): unknown[] {
  const out: unknown[] = []
  for (const item of items) {
    const at = out.findIndex((o) => sameItem(o, item))
    if (at >= 0) out[at] = item
    else out.push(item)
  }
  const primaries = out.filter((o): o is Json => !!o && typeof o === "object" && (o as Json).primary === true)
  for (const earlier of primaries.slice(0, -1)) {
    const at = out.indexOf(earlier)
    out[at] = { ...earlier, primary: false }
  }
  return out
}

/** An emptied list or object is removed, so "absent" has one form. */
function tidy(holder: Json, name: string): void {
  const v = holder[name]
  if ((Array.isArray(v) && v.length === 0) || (v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0)) delete holder[name]
}

function tidyExtension(resource: Json, attr: AttributeRef): void {
  if (attr.extension) tidy(resource, attr.extension)
}

/** `type eq "work"` (and `and`s of such) as the element it describes; `null` for anything else. */
function seedFromFilter(filter: Filter): Json | null {
  if (filter.kind === "compare" && filter.op === "eq" && filter.value !== null) return { [filter.attr.def.name]: filter.value }
  if (filter.kind === "and") {
    const left = seedFromFilter(filter.left)
    const right = seedFromFilter(filter.right)
    return left && right ? { ...left, ...right } : null
  }
  return null
}
