/**
 * Issue 14, kept true by test: core's modules form no import cycle (type imports and `import()` included:
 * a leaf of shared types, `base-types.ts`, is what everything speaks in), and no module
 * keeps mutable state — everything a configuration remembers lives on its runtime.
 */
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { describe, expect, it } from "vitest"

const src = resolve(import.meta.dirname, "../../src")

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []))
}

/**
 * Relative import and re-export specifiers of a file, and the modules it names with
 * `import("…")` (a lazy load, or a type taken from a module), resolved to source paths. A
 * module loaded lazily still closes a loop: the provider kinds' registry reached every kind's
 * code that way, and ResolvedConfig named the registry, so lib/ grew into one circle.
 */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8")
  const specifiers = [
    ...[...text.matchAll(/^(?:import|export)\b[^'"]*?from\s+"(\.{1,2}\/[^"]+)"/gms)].map((m) => m[1]!),
    ...[...text.matchAll(/\bimport\(\s*"(\.{1,2}\/[^"]+)"\s*\)/g)].map((m) => m[1]!),
  ]
  return specifiers.map((s) => resolve(dirname(file), s.replace(/\.js$/, ".ts")))
}

describe("core's module graph", () => {
  it("has no import cycle, type imports and import() included", () => {
    const all = files(src)
    const graph = new Map(all.map((f) => [f, importsOf(f)]))
    const state = new Map<string, "visiting" | "done">()
    const cycles: string[] = []
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === "done") return
      if (state.get(file) === "visiting") {
        cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(src, f)).join(" → "))
        return
      }
      state.set(file, "visiting")
      for (const next of graph.get(file) ?? []) if (graph.has(next)) visit(next, [...path, file])
      state.set(file, "done")
    }
    for (const file of all) visit(file, [])
    expect(cycles).toEqual([])
  })

  // Lookup tables built from a literal list (`new Set([...])`) are constants and pass.
  it("keeps no mutable state at module level (one registry maps a config object to its runtime)", () => {
    const allowed = new Map([
      // Auth(request, config) takes a plain object each call; this maps it to its runtime.
      ["lib/runtime.ts", ["registry"]],
      // A constant table built from a literal string.
      ["lib/pages/color.ts", ["NAMED_COLORS"]],
    ])
    const found: string[] = []
    for (const file of files(src)) {
      const name = relative(src, file)
      const text = readFileSync(file, "utf8")
      for (const m of text.matchAll(/^(?:export )?(let|var) (\w+)/gm)) found.push(`${name}: ${m[1]} ${m[2]}`)
      for (const m of text.matchAll(/^(?:export )?const (\w+)\s*(?::[^=]+)?=\s*new (Map|WeakMap|Set|WeakSet|WeakRef|\w*Cache|KeyRing|LogLimiter)\b(?:<[^>]*>)?\((?!\s*\[)/gm)) {
        if (!allowed.get(name)?.includes(m[1]!)) found.push(`${name}: const ${m[1]} = new ${m[2]}`)
      }
    }
    expect(found).toEqual([])
  })
})
