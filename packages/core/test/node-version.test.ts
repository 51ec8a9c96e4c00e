import { describe, expect, it } from "vitest"
import { Auth, createAuth } from "@portcullis/core"
import { assertSupportedNode, unsupportedNode } from "../src/lib/node-version.ts"

// The packages have no `engines` field (an install on Node 20 must not warn, issue 30):
// the Node version is checked when a configuration is first used.
describe("a Node older than 22.12 is refused with a message naming both versions", () => {
  it.each(["20.20.2", "18.19.0", "22.11.0", "21.7.3"])("Node %s", (node) => {
    expect(unsupportedNode({ node })).toBe(`Portcullis needs Node ≥ 22.12 (24 LTS recommended); this is Node ${node}. Upgrade Node.`)
    expect(() => assertSupportedNode({ node })).toThrow(`this is Node ${node}`)
  })
})

describe("Node 22.12 and newer pass", () => {
  it.each(["22.12.0", "22.13.1", "23.0.0", "24.21.0", "26.1.0"])("Node %s", (node) => {
    expect(unsupportedNode({ node })).toBeUndefined()
    expect(() => assertSupportedNode({ node })).not.toThrow()
  })
})

describe("runtimes that are not Node are not judged by the Node version they emulate", () => {
  it("Bun (reports versions.node too)", () => expect(unsupportedNode({ node: "20.0.0", bun: "1.3.14" })).toBeUndefined())
  it("Deno (reports versions.node too)", () => expect(unsupportedNode({ node: "20.0.0", deno: "2.9.6" })).toBeUndefined())
  it("a Worker or an edge runtime without process.versions", () => expect(unsupportedNode(undefined)).toBeUndefined())
})

describe("the check runs where a configuration is first used", () => {
  it("this process's Node passes, so createAuth and Auth build their runtime", async () => {
    expect(unsupportedNode()).toBeUndefined()
    expect(() => createAuth({ providers: [], secret: "s".repeat(32) })).not.toThrow()
    const response = await Auth(new Request("http://localhost/auth/csrf"), { providers: [], secret: "s".repeat(32), trustHost: true })
    expect(response.status).toBe(200)
  })
})
