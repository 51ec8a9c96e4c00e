/**
 * Spec §6 (issue 37): the `updateUser` event fires on every update of a user. That holds
 * because every update goes through `updateUser(ctx, adapter, patch)` in `lib/login.ts`,
 * which fires it; this keeps it so — a new `adapter.updateUser(…)` anywhere else in core
 * (a user updated without the event) fails here. Calls are found with the TypeScript
 * parser, so comments and strings do not count.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const src = resolve(import.meta.dirname, "../../src")

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [join(dir, e.name)] : []))
}

/** `file:line` of every call of a member named `updateUser` whose object is not `….events`. */
function adapterUpdates(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === "updateUser") {
      const target = node.expression.expression
      const isEvent = ts.isPropertyAccessExpression(target) && target.name.text === "events"
      if (!isEvent) found.push(`${relative(src, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

describe("every update of a user fires the updateUser event", () => {
  it("core calls the adapter's updateUser only inside login.ts's updateUser helper", () => {
    const calls = files(src).flatMap(adapterUpdates)
    expect(calls.filter((at) => !at.startsWith(join("lib", "login.ts") + ":"))).toEqual([])
    // The helper itself calls it once, and fires the event after it.
    expect(calls.filter((at) => at.startsWith(join("lib", "login.ts") + ":"))).toHaveLength(1)
  })
})
