/**
 * Issue 16: an app that satisfies Auth.js's peer ranges must satisfy ours, or `npm install`
 * refuses the swap (e.g. next-auth on React 18). For each peer of the Auth.js package that our
 * package (or core, which it brings along) also peers on, their range must be a subset of ours.
 */
import semver from "semver"
import { describe, expect, it } from "vitest"
import { manifest, pairs } from "./surface.ts"

/** Peers of theirs we accept narrower, by `<their package>#<peer>`, each with why. Keep it tiny. */
const narrower = new Map<string, string>([
  // Our components are Svelte 5 components (snippets, a runes-mode renderer); Svelte 3/4
  // cannot compile them, and Kit 1 exists only for Svelte 3/4.
  ["@auth/sveltekit#svelte", "components need Svelte 5"],
  ["@auth/sveltekit#@sveltejs/kit", "Kit 1 runs only Svelte 3/4"],
])

/** The peers an app must provide for `name`: its own and those of @portcullis/core, which every package depends on. */
function ourPeers(name: string): Record<string, string> {
  return { ...manifest("@portcullis/core").peerDependencies, ...manifest(name).peerDependencies }
}

describe.each(pairs)("$ours peers at least as widely as $theirs", ({ theirs, ours }) => {
  it("accepts every version of a shared peer that Auth.js's package accepts", () => {
    const wanted = ourPeers(ours)
    const shared = Object.entries(manifest(theirs).peerDependencies ?? {}).filter(([peer]) => peer in wanted)
    const narrowerThanTheirs = shared
      .filter(([peer, range]) => !semver.subset(range, wanted[peer]!, { includePrerelease: true }))
      .filter(([peer]) => !narrower.has(`${theirs}#${peer}`))
      .map(([peer, range]) => `${peer}: theirs ${range}, ours ${wanted[peer]}`)
    expect(narrowerThanTheirs).toEqual([])
  })
})

describe("the list of narrower peers", () => {
  it("names only peers that are really narrower today", () => {
    for (const key of narrower.keys()) {
      const [theirs, peer] = key.split(/#(?=[^#]+$)/) as [string, string]
      const ours = ourPeers(pairs.find((p) => p.theirs === theirs)!.ours)[peer]
      const range = manifest(theirs).peerDependencies?.[peer]
      expect(range, key).toBeDefined()
      expect(ours, key).toBeDefined()
      expect(semver.subset(range!, ours!, { includePrerelease: true }), key).toBe(false)
    }
  })

  it("React 18 apps can use @portcullis/next, as they can next-auth", () => {
    expect(semver.satisfies("18.2.0", ourPeers("@portcullis/next").react!)).toBe(true)
    expect(semver.satisfies("14.2.0", ourPeers("@portcullis/next").next!)).toBe(true)
  })
})
