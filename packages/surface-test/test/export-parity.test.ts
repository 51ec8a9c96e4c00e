/**
 * Issue 16: an app migrates from Auth.js by changing import specifiers (`next-auth` →
 * `@portcullis/next`, `@auth/express` → `@portcullis/express`, …), so every import path of
 * Auth.js's package must exist in ours, and every name it exports there (values and types)
 * too. Read from the pinned packages' real `exports` maps and `.d.ts` files (this package's
 * devDependencies) and from our built `dist` (`npm test` builds first).
 *
 * Provider modules (`./providers`, `./providers/<id>`) are held to the same rule: run-time
 * exports and type-only ones (profile shapes and their pieces, config helper types); their
 * options are compared by packages/core/test/providers/option-parity.test.ts.
 */
import { describe, expect, it } from "vitest"
import { expand, exportedNames, manifest, pairs, specifier, subpaths, type Exported, type Pair } from "./surface.ts"

/**
 * Exports of theirs we deliberately lack, by `<their specifier>#<name>`, each with why. Keep
 * it tiny: only what is internal to Auth.js or unsafe to offer.
 */
const allowed = new Map<string, string>([
  // A version string for the CDN <script> of Auth.js's built-in passkey page. Our pages
  // serve @simplewebauthn/browser from the package itself; no CDN, so no version to name.
  ["next-auth/providers/webauthn#DEFAULT_SIMPLEWEBAUTHN_BROWSER_VERSION", "our passkey page loads no CDN script"],
  ["@auth/express/providers/webauthn#DEFAULT_SIMPLEWEBAUTHN_BROWSER_VERSION", "our passkey page loads no CDN script"],
  ["@auth/sveltekit/providers/webauthn#DEFAULT_SIMPLEWEBAUTHN_BROWSER_VERSION", "our passkey page loads no CDN script"],
  ["@auth/solid-start/providers/webauthn#DEFAULT_SIMPLEWEBAUTHN_BROWSER_VERSION", "our passkey page loads no CDN script"],
  ["@auth/qwik/providers/webauthn#DEFAULT_SIMPLEWEBAUTHN_BROWSER_VERSION", "our passkey page loads no CDN script"],
  ["@auth/core/providers/webauthn#DEFAULT_SIMPLEWEBAUTHN_BROWSER_VERSION", "our passkey page loads no CDN script"],
])

/** Every concrete subpath of theirs (wildcards expanded to the files they match), but `./package.json`. */
const concrete = (name: string) => subpaths(name).flatMap((s) => (s.includes("*") ? expand(name, s) : [s])).filter((s) => s !== "./package.json")

/** Their names (values and types) missing from ours at `subpath`, but allow-listed ones. */
function missing(pair: Pair, subpath: string, names: Map<string, Exported | undefined>): string[] {
  const theirs = names.get(specifier(pair.theirs, subpath))!
  const ours = names.get(specifier(pair.ours, subpath))
  if (!ours) return ["(no types)"]
  return theirs.all.filter((name) => !ours.all.includes(name) && !allowed.has(`${specifier(pair.theirs, subpath)}#${name}`))
}

describe.each(pairs)("$ours offers what $theirs offers", (pair) => {
  it(`has every subpath of ${pair.theirs} ${manifest(pair.theirs).version} in its exports map, wildcards included`, () => {
    const ours = subpaths(pair.ours)
    expect(subpaths(pair.theirs).filter((s) => !ours.includes(s))).toEqual([])
    // Each module a wildcard of theirs matches resolves under ours (`./providers/github`, …).
    const names = exportedNames(concrete(pair.theirs).map((s) => specifier(pair.ours, s)))
    expect([...names].filter(([, found]) => !found).map(([spec]) => spec)).toEqual([])
  })

  it("exports every name theirs exports at each subpath (values and types), or allow-lists it with a reason", () => {
    const paths = concrete(pair.theirs)
    const names = exportedNames(paths.flatMap((s) => [specifier(pair.theirs, s), specifier(pair.ours, s)]))
    // Their side must have been read, or the comparison would pass vacuously.
    expect(names.get(pair.theirs)?.all.length).toBeGreaterThan(0)
    const gaps = Object.fromEntries(paths.map((s) => [s, missing(pair, s, names)]).filter(([, list]) => list.length > 0))
    expect(gaps).toEqual({})
  })
})

describe("the allow-list", () => {
  it("names only exports that exist on Auth.js's side and are missing on ours", () => {
    const specs = [...new Set([...allowed.keys()].map((key) => key.split("#")[0]!))]
    const names = exportedNames(specs)
    for (const key of allowed.keys()) {
      const [spec, name] = key.split("#") as [string, string]
      expect(names.get(spec)?.all, key).toContain(name)
      const pair = pairs.find((p) => spec === p.theirs || spec.startsWith(`${p.theirs}/`))!
      const ours = exportedNames([pair.ours + spec.slice(pair.theirs.length)]).values().next().value
      expect(ours?.all ?? [], key).not.toContain(name)
    }
  })
})
