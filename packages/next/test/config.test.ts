import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { appFor } from "../src/lib/config.js"
import { providerModules } from "../../../scripts/provider-modules.ts"
import { testConfig } from "./helpers.js"

describe("environment defaults", () => {
  const bare = () => ({ ...testConfig(), secret: undefined, trustHost: undefined })

  it("serves under /api/auth by default, or under the path of AUTH_URL / NEXTAUTH_URL", async () => {
    expect((await appFor(bare(), undefined, {})).config.basePath).toBe("/api/auth")
    expect((await appFor(bare(), undefined, { AUTH_URL: "https://site.test/" })).config.basePath).toBe("/api/auth")
    expect((await appFor(bare(), undefined, { NEXTAUTH_URL: "https://site.test/custom/auth/" })).config.basePath).toBe("/custom/auth")
    expect((await appFor({ ...bare(), basePath: "/auth" }, undefined, { AUTH_URL: "https://site.test/x" })).config.basePath).toBe("/auth")
  })

  it("takes secrets from AUTH_SECRET, else NEXTAUTH_SECRET, with AUTH_SECRET_1..3 first for rotation", async () => {
    expect((await appFor(bare(), undefined, { NEXTAUTH_SECRET: "legacy" })).config.secret).toEqual(["legacy"])
    const rotated = await appFor(bare(), undefined, { AUTH_SECRET: "old", NEXTAUTH_SECRET: "ignored", AUTH_SECRET_1: "new" })
    expect(rotated.config.secret).toEqual(["new", "old"])
    expect((await appFor(testConfig(), undefined, { AUTH_SECRET: "env" })).config.secret).toBe(testConfig().secret)
  })

  it("trusts the host in development and behind AUTH_URL, not in production by default", async () => {
    expect((await appFor(bare(), undefined, { NODE_ENV: "development" })).config.trustHost).toBe(true)
    expect((await appFor(bare(), undefined, { NODE_ENV: "production" })).config.trustHost).toBe(false)
    expect((await appFor(bare(), undefined, { NODE_ENV: "production", AUTH_URL: "https://site.test" })).config.trustHost).toBe(true)
  })

  it("never writes into the app's config, and gives core one object, so one runtime, per app config", async () => {
    const config = bare()
    const a = await appFor(config, undefined, { AUTH_SECRET: "s" })
    const b = await appFor(() => config, undefined, { AUTH_SECRET: "other" })
    expect(config.secret).toBeUndefined()
    expect(config).not.toHaveProperty("basePath")
    expect(b).toBe(a)
    expect(a.runtime.basePath).toBe("/api/auth")
    expect(a.config).not.toHaveProperty("raw")
    expect(a.config).not.toHaveProperty("skipCSRFCheck")
  })
})

describe("package surface", () => {
  it("peers on React 18 as well as 19, as next-auth does (the React client uses only React 18 APIs)", async () => {
    const { satisfies } = await import("semver")
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "../package.json"), "utf8")) as { peerDependencies: Record<string, string> }
    for (const version of ["18.2.0", "18.3.1", "19.0.0", "19.2.0"]) expect(satisfies(version, pkg.peerDependencies.react!), version).toBe(true)
  })

  const here = import.meta.dirname
  it("generates a module pair re-exporting every core provider under @portcullis/next/providers/*", () => {
    const core = readdirSync(join(here, "../../core/src/providers")).filter((f) => f.endsWith(".ts"))
    const files = providerModules("@portcullis/next")
    expect([...files.keys()].sort()).toEqual(core.flatMap((f) => [f.replace(/\.ts$/, ".d.ts"), f.replace(/\.ts$/, ".js")]).sort())
    for (const file of core) {
      const id = file.replace(/\.ts$/, "")
      const specifier = id === "index" ? "@portcullis/core/providers" : `@portcullis/core/providers/${id}`
      const js = files.get(`${id}.js`)!
      expect(js, id).toContain(`export * from "${specifier}"`)
      expect(js.includes("export { default }"), id).toBe(/^export default /m.test(readFileSync(join(here, "../../core/src/providers", file), "utf8")))
      expect(files.get(`${id}.d.ts`), id).toBe(js)
    }
    expect(existsSync(join(here, "../src/providers")), "no file per provider in the sources").toBe(false)
  })

  it("resolves provider imports as next-auth's do", async () => {
    const GitHub = (await import("@portcullis/next/providers/github")).default
    expect(GitHub({ clientId: "id", clientSecret: "secret" })).toMatchObject({ id: "github", type: "oauth" })
  })

  it("maps every export to a source file", () => {
    const pkg = JSON.parse(readFileSync(join(here, "../package.json"), "utf8")) as { exports: Record<string, string | { default: string }> }
    for (const [name, target] of Object.entries(pkg.exports)) {
      // ./providers and ./providers/* are generated at build time (scripts/provider-modules.ts).
      if (typeof target === "string" || name.startsWith("./providers")) continue
      const source = target.default.replace("./dist/", "../src/").replace(/\.js$/, "")
      const exists = [".ts", ".tsx"].some((ext) => {
        try {
          readFileSync(join(here, source + ext))
          return true
        } catch {
          return false
        }
      })
      expect(exists, name).toBe(true)
    }
  })
})
