/**
 * docs/spec-conformance.md maps every requirement of the specification to the tests that
 * prove it or to the documented deviation that replaces it (issue 37). This keeps the map
 * true as the code moves: every listed test file must exist and hold an `it`/`test` with
 * the listed title (read with the TypeScript parser, so a title in a comment or a string
 * elsewhere does not count), every linked document and heading must exist, every row must
 * have a proof, and every section of the spec must have a row.
 */
import { existsSync, readFileSync } from "node:fs"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const root = new URL("../../../../", import.meta.url)
const read = (path: string) => readFileSync(new URL(path, root), "utf8")
const map = read("docs/spec-conformance.md")

/** The sections and numbered items of the spec; each needs a row whose id is it or starts with it and "/". */
const SECTIONS = [
  ...Array.from({ length: 10 }, (_, i) => `1.${i + 1}`),
  ...Array.from({ length: 21 }, (_, i) => `2.${i + 1}`),
  "3",
  "4.1", "4.2", "4.3", "4.4", "4.5", "4.6",
  ...Array.from({ length: 10 }, (_, i) => `5.${i + 1}`),
  "6",
  "7.1", "7.2", "7.3",
  "8",
  ...Array.from({ length: 6 }, (_, i) => `9.${i + 1}`),
]

interface Row {
  id: string
  line: number
  tests: { file: string; title: string }[]
  links: { file: string; anchor: string | undefined }[]
}

/** Table rows of the map whose first cell is a requirement id (`1.7/next`, `3/db-expired`, …). */
function rows(): Row[] {
  const out: Row[] = []
  map.split("\n").forEach((text, index) => {
    // Split on the pipes of the table, not on escaped ones inside a cell (`Date \| null`).
    const cells = text.split(/(?<!\\)\|/).map((c) => c.trim())
    if (cells.length < 4 || !/^\d+(\.\d+)?(\/[\w-]+)?$/.test(cells[1]!)) return
    const proof = cells.slice(3).join("|")
    const tests = [...proof.matchAll(/`([^`]+\.tsx?)` › "((?:[^"\\]|\\.)*)"/g)].map((m) => ({ file: m[1]!, title: m[2]!.replace(/\\\|/g, "|") }))
    const links = [...proof.matchAll(/\]\(([\w.-]+\.md)(?:#([\w-]+))?\)/g)].map((m) => ({ file: m[1]!, anchor: m[2] }))
    out.push({ id: cells[1]!, line: index + 1, tests, links })
  })
  return out
}

/** The titles of every `it`/`test` call in a test file, as written (a template's text between its backticks). */
function titlesOf(path: string): Set<string> {
  const source = ts.createSourceFile(path, read(path), ts.ScriptTarget.Latest, true)
  const titles = new Set<string>()
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      // it(…), it.each(…)(…), test.skipIf(…)(…), it.concurrent(…): the root identifier decides.
      let callee: ts.Expression = node.expression
      while (ts.isCallExpression(callee) || ts.isPropertyAccessExpression(callee)) callee = callee.expression
      const title = node.arguments[0]
      if (ts.isIdentifier(callee) && (callee.text === "it" || callee.text === "test") && title) {
        if (ts.isStringLiteral(title) || ts.isNoSubstitutionTemplateLiteral(title)) titles.add(title.text)
        else if (ts.isTemplateExpression(title)) titles.add(title.getText(source).slice(1, -1))
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return titles
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchors(path: string): Set<string> {
  return new Set(
    read(path)
      .split("\n")
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) => line.replace(/^#+ /, "").trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-")),
  )
}

describe("docs/spec-conformance.md", () => {
  const all = rows()

  it("has rows to check", () => {
    expect(all.length).toBeGreaterThan(100)
  })

  it("covers every section of the spec", () => {
    const ids = all.map((r) => r.id)
    expect(SECTIONS.filter((s) => !ids.some((id) => id === s || id.startsWith(`${s}/`)))).toEqual([])
  })

  it("gives every row a proof: a test, or a documented deviation or statement", () => {
    expect(all.filter((r) => r.tests.length === 0 && r.links.length === 0).map((r) => `${r.id} (line ${r.line})`)).toEqual([])
  })

  it("lists only test files that exist, and titles of it/test calls in them", () => {
    const cache = new Map<string, Set<string> | null>()
    const missing: string[] = []
    for (const row of all) {
      for (const { file, title } of row.tests) {
        if (!cache.has(file)) cache.set(file, existsSync(new URL(file, root)) ? titlesOf(file) : null)
        const titles = cache.get(file)
        if (!titles) missing.push(`${row.id}: no file ${file}`)
        else if (!titles.has(title)) missing.push(`${row.id}: no test "${title}" in ${file}`)
      }
    }
    expect(missing).toEqual([])
  })

  it("links only documents and headings that exist", () => {
    const missing: string[] = []
    for (const row of all) {
      for (const { file, anchor } of row.links) {
        const path = `docs/${file}`
        if (!existsSync(new URL(path, root))) missing.push(`${row.id}: no ${path}`)
        else if (anchor && !anchors(path).has(anchor)) missing.push(`${row.id}: no heading #${anchor} in ${path}`)
      }
    }
    expect(missing).toEqual([])
  })
})
