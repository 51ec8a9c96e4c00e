/**
 * SCIM filters (RFC 7644 §3.4.2.2): parsed into a tree against a resource's schema, then
 * matched against resources in their canonical JSON form. Hostile input is bounded — a
 * length cap, a nesting cap and a cap on comparisons — and anything unknown (an attribute,
 * an operator, a stray token) is a 400 `invalidFilter`, never a guess.
 * @module
 */
import { badRequest } from "./errors.js"
import { resolveAttribute, resolveSubAttribute, toBoolean, type AttributeDef, type AttributeRef, type ResourceSchema } from "./schema.js"

/** Longer filters are refused before parsing; Okta's and Entra's are well under 200 characters. */
export const MAX_FILTER_LENGTH = 1024
const MAX_DEPTH = 8
const MAX_COMPARISONS = 32

export type CompareOp = "eq" | "ne" | "co" | "sw" | "ew" | "gt" | "lt" | "ge" | "le"
export type CompValue = string | number | boolean | null

/** A parsed filter. Inside a value path (`emails[…]`) `attr` names a sub-attribute of the element. */
export type Filter =
  | { kind: "compare"; attr: AttributeRef; op: CompareOp; value: CompValue }
  | { kind: "present"; attr: AttributeRef }
  | { kind: "and" | "or"; left: Filter; right: Filter }
  | { kind: "not"; filter: Filter }
  | { kind: "valuePath"; attr: AttributeRef; filter: Filter }

type Token = { t: "(" | ")" | "[" | "]" } | { t: "word"; v: string } | { t: "string"; v: string }

const OPS = new Set<string>(["eq", "ne", "co", "sw", "ew", "gt", "lt", "ge", "le"])

/** Splits a filter or a PATCH path into tokens; a malformed string literal is refused. */
export function tokenize(text: string, error: (detail: string) => Error): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    if (c === " " || c === "\t") {
      i++
    } else if (c === "(" || c === ")" || c === "[" || c === "]") {
      tokens.push({ t: c })
      i++
    } else if (c === '"') {
      const m = /^"(?:[^"\\]|\\.)*"/.exec(text.slice(i))
      if (!m) throw error("Unterminated string in filter")
      try {
        tokens.push({ t: "string", v: JSON.parse(m[0]) as string })
      } catch {
        throw error("Malformed string in filter")
      }
      i += m[0].length
    } else {
      const m = /^[A-Za-z0-9_:.$+\-]+/.exec(text.slice(i))
      if (!m) throw error(`Unexpected character ${JSON.stringify(c)} in filter`)
      tokens.push({ t: "word", v: m[0] })
      i += m[0].length
    }
  }
  return tokens
}

/** A recursive-descent parser over tokens, shared by filters and PATCH paths. */
export class FilterParser {
  private pos = 0
  private comparisons = 0

  constructor(
    private readonly tokens: Token[],
    private readonly schema: ResourceSchema,
    private readonly error: (detail: string) => Error,
  ) {}

  get done(): boolean {
    return this.pos >= this.tokens.length
  }

  peek(): Token | undefined {
    return this.tokens[this.pos]
  }

  next(): Token | undefined {
    return this.tokens[this.pos++]
  }

  /** filter = term *("or" term); `and` binds tighter than `or` (§3.4.2.2). */
  parseFilter(parent: AttributeDef | null, depth: number): Filter {
    if (depth > MAX_DEPTH) throw this.error("The filter is nested too deeply")
    let left = this.parseAnd(parent, depth)
    while (this.isWord("or")) {
      this.pos++
      left = { kind: "or", left, right: this.parseAnd(parent, depth) }
    }
    return left
  }

  private parseAnd(parent: AttributeDef | null, depth: number): Filter {
    let left = this.parseFactor(parent, depth)
    while (this.isWord("and")) {
      this.pos++
      left = { kind: "and", left, right: this.parseFactor(parent, depth) }
    }
    return left
  }

  private parseFactor(parent: AttributeDef | null, depth: number): Filter {
    const token = this.next()
    if (!token) throw this.error("The filter ends too early")
    if (token.t === "(") {
      const inner = this.parseFilter(parent, depth + 1)
      this.expect(")")
      return inner
    }
    if (token.t === "word" && token.v.toLowerCase() === "not") {
      this.expect("(")
      const inner = this.parseFilter(parent, depth + 1)
      this.expect(")")
      return { kind: "not", filter: inner }
    }
    if (token.t !== "word") throw this.error("Expected an attribute name")
    const attr = this.attribute(token.v, parent)
    if (this.peek()?.t === "[") {
      if (parent) throw this.error("A value path cannot be nested in another")
      if (!attr.def.subAttributes || attr.sub) throw this.error(`${token.v} has no sub-attributes to filter on`)
      this.pos++
      const inner = this.parseFilter(attr.def, depth + 1)
      this.expect("]")
      const after = this.peek()
      if (after?.t === "word" && after.v.startsWith(".")) {
        // `emails[type eq "work"].value eq "…"` (Entra ID): an element matching the brackets whose sub-attribute compares.
        this.pos++
        const sub = this.attribute(after.v.slice(1), attr.def)
        return { kind: "valuePath", attr, filter: { kind: "and", left: inner, right: this.comparison(sub, after.v) } }
      }
      return { kind: "valuePath", attr, filter: inner }
    }
    return this.comparison(attr, token.v)
  }

  private comparison(attr: AttributeRef, name: string): Filter {
    if (++this.comparisons > MAX_COMPARISONS) throw this.error("The filter has too many comparisons")
    const op = this.next()
    if (op?.t !== "word") throw this.error(`Expected an operator after ${name.slice(0, 64)}`)
    const lower = op.v.toLowerCase()
    if (lower === "pr") return { kind: "present", attr }
    if (!OPS.has(lower)) throw this.error(`Unknown operator ${JSON.stringify(op.v.slice(0, 16))}`)
    return { kind: "compare", attr, op: lower as CompareOp, value: this.compValue() }
  }

  private compValue(): CompValue {
    const token = this.next()
    if (token?.t === "string") return token.v
    if (token?.t === "word") {
      const lower = token.v.toLowerCase()
      if (lower === "true" || lower === "false") return lower === "true"
      if (lower === "null") return null
      if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(token.v)) return Number(token.v)
    }
    throw this.error("Expected a value: a quoted string, a number, true, false or null")
  }

  /** Resolves an attribute name; inside a value path, against the parent's sub-attributes. */
  attribute(text: string, parent: AttributeDef | null): AttributeRef {
    if (parent) {
      const sub = resolveSubAttribute(parent, text)
      if (!sub) throw this.error(`Unknown attribute ${JSON.stringify(text.slice(0, 64))}`)
      return { extension: null, def: sub, sub: null }
    }
    const ref = resolveAttribute(this.schema, text)
    if (!ref) throw this.error(`Unknown attribute ${JSON.stringify(text.slice(0, 64))}`)
    return ref
  }

  expect(t: "(" | ")" | "[" | "]"): void {
    if (this.next()?.t !== t) throw this.error(`Expected "${t}" in filter`)
  }

  private isWord(word: string): boolean {
    const token = this.peek()
    return token?.t === "word" && token.v.toLowerCase() === word
  }
}

/**
 * Parses a `filter` query parameter against a resource type's schema; a 400
 * `invalidFilter` for anything too long, too deep, unknown or malformed.
 *
 * @example
 * ```ts
 * const filter = parseFilter('userName eq "ada@acme.com"', USER)
 * ```
 */
export function parseFilter(text: string, schema: ResourceSchema): Filter {
  const error = (detail: string) => badRequest("invalidFilter", detail)
  if (text.length > MAX_FILTER_LENGTH) throw error(`The filter is longer than ${MAX_FILTER_LENGTH} characters`)
  const parser = new FilterParser(tokenize(text, error), schema, error)
  if (parser.done) throw error("The filter is empty")
  const filter = parser.parseFilter(null, 0)
  if (!parser.done) throw error("Unexpected text after the filter")
  return filter
}

type Json = Record<string, unknown>

/** The values an attribute reference has in a resource, flattened across a multi-valued attribute. */
export function valuesOf(resource: Json, attr: AttributeRef): unknown[] {
  const holder = attr.extension ? (resource[attr.extension] as Json | undefined) : resource
  const raw = holder?.[attr.def.name]
  if (raw === undefined || raw === null) return []
  const items = Array.isArray(raw) ? raw : [raw]
  if (attr.def.type !== "complex") return items
  // A complex attribute compared without a sub-attribute compares its `value` (RFC 7644 §3.4.2.2).
  const sub = attr.sub?.name ?? "value"
  return items.flatMap((item) => (item && typeof item === "object" ? [(item as Json)[sub]] : [])).filter((v) => v !== undefined && v !== null)
}

const caseExact = (attr: AttributeRef) => (attr.sub ?? attr.def).caseExact === true

function compare(actual: unknown, op: CompareOp, expected: CompValue, exact: boolean, type: AttributeDef["type"]): boolean {
  if (type === "boolean") {
    // Entra ID and others may quote booleans in filters (`active eq "true"`).
    const a = toBoolean(actual)
    const e = toBoolean(expected)
    if (a === undefined || e === undefined) return false
    return op === "eq" ? a === e : op === "ne" ? a !== e : false
  }
  if (typeof expected === "number") {
    const a = typeof actual === "number" ? actual : Number(actual)
    if (Number.isNaN(a)) return false
    return op === "eq" ? a === expected : op === "ne" ? a !== expected : op === "gt" ? a > expected : op === "ge" ? a >= expected : op === "lt" ? a < expected : op === "le" ? a <= expected : false
  }
  if (typeof expected !== "string" || typeof actual !== "string") return op === "ne"
  const a = exact ? actual : actual.toLowerCase()
  const e = exact ? expected : expected.toLowerCase()
  switch (op) {
    case "eq":
      return a === e
    case "ne":
      return a !== e
    case "co":
      return a.includes(e)
    case "sw":
      return a.startsWith(e)
    case "ew":
      return a.endsWith(e)
    case "gt":
      return a > e
    case "ge":
      return a >= e
    case "lt":
      return a < e
    case "le":
      return a <= e
  }
}

/** Whether a resource (canonical JSON) matches a parsed filter. */
export function matches(resource: Json, filter: Filter): boolean {
  switch (filter.kind) {
    case "and":
      return matches(resource, filter.left) && matches(resource, filter.right)
    case "or":
      return matches(resource, filter.left) || matches(resource, filter.right)
    case "not":
      return !matches(resource, filter.filter)
    case "present":
      return valuesOf(resource, filter.attr).some((v) => v !== "" && !(Array.isArray(v) && v.length === 0))
    case "valuePath": {
      const holder = filter.attr.extension ? (resource[filter.attr.extension] as Json | undefined) : resource
      const raw = holder?.[filter.attr.def.name]
      const items = Array.isArray(raw) ? raw : raw ? [raw] : []
      return items.some((item) => item && typeof item === "object" && matches(item as Json, filter.filter))
    }
    case "compare": {
      const values = valuesOf(resource, filter.attr)
      const type = (filter.attr.sub ?? filter.attr.def).type
      if (filter.value === null) return filter.op === "eq" ? values.length === 0 : filter.op === "ne" ? values.length > 0 : false
      // `ne` holds when no value equals; the others when any value matches.
      if (filter.op === "ne") return !values.some((v) => compare(v, "eq", filter.value, caseExact(filter.attr), type))
      return values.some((v) => compare(v, filter.op, filter.value, caseExact(filter.attr), type))
    }
  }
}
