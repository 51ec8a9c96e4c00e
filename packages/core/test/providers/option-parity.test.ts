/**
 * Option parity with Auth.js (issue #15, item 2): every option Auth.js's preset accepts,
 * ours accepts. For each provider id that exists both in `@auth/core/providers/` (the
 * installed devDependency) and in `src/providers/`, the TypeScript checker resolves the type
 * of the default export's first parameter on both sides (intersections and mapped types
 * included) and every property name of Auth.js's must exist on ours, unless an entry of
 * {@link NOT_SUPPORTED} says why not. The second half asserts that the options added for
 * parity do what Auth.js's do.
 */
import { existsSync, readdirSync } from "node:fs"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { customFetch } from "@portcullis/core"
import Dribbble from "@portcullis/core/providers/dribbble"
import MicrosoftEntraID from "@portcullis/core/providers/microsoft-entra-id"
import { Browser, direct, SECRET } from "../helpers.js"
import { location, startSignIn } from "../oauth/flow.js"

const theirsDir = fileURLToPath(new URL("../../../../node_modules/@auth/core/providers/", import.meta.url))
const oursDir = fileURLToPath(new URL("../../src/providers/", import.meta.url))

/**
 * Options of Auth.js's presets that ours deliberately do not accept, by provider id (`*`:
 * every provider), each with the reason. An entry no longer needed fails the test.
 */
const NOT_SUPPORTED: Record<string, Record<string, string>> = {
  "*": {
    // Declared on Auth.js's OAuth2Config (from its IssuerMetadata type) but read nowhere in
    // @auth/core 0.41's runtime; our id_token keys come only from the issuer's discovered
    // `jwks_uri` (see lib/oauth/id-token.ts), so accepting it would be a silent no-op.
    jwks_endpoint: "Auth.js declares it but never reads it; id_token keys come from discovery's jwks_uri",
  },
  credentials: {
    // Auth.js's parameter is Partial<CredentialsConfig>, so `type` is nominally accepted;
    // a credentials preset with another type is no longer a credentials provider.
    type: "the preset fixes the provider kind",
  },
  notion: {
    // Auth.js puts it on the authorization URL only. Portcullis reserves `redirect_uri`: it
    // is the callback URL, sent identically on the authorization and the token request
    // (Notion's requirement); another value on one of them breaks the code exchange or
    // sends the code to a URL this deployment does not serve. Preview deployments use
    // `redirectProxyUrl`.
    redirectUri: "redirect_uri is always the callback URL, on both requests",
  },
  ...Object.fromEntries(
    ["webauthn", "passkey"].map((id) => [
      id,
      {
        type: "the preset fixes the provider kind",
        // Auth.js lets you inject the @simplewebauthn/server module (its default is v9's
        // functions). Portcullis reads the result shapes of the major it is built against
        // (v13); a module of another major would be misread — a verification that looks
        // passed or a crash — so the module is Portcullis's own.
        simpleWebAuthn: "Portcullis reads @simplewebauthn/server v13's result shapes; an injected module of another major would be misread",
      },
    ]),
  ),
}

/** Provider ids on both sides; `index` and `oauth` hold shared types, not presets. */
const ids = readdirSync(oursDir)
  .filter((f) => f.endsWith(".ts"))
  .map((f) => f.slice(0, -3))
  .filter((id) => id !== "index" && id !== "oauth" && existsSync(`${theirsDir}${id}.d.ts`))
  .sort()

/** One program over both sets of files: the slow part, done once. */
function optionNames(): Map<string, { theirs: string[]; ours: string[] }> {
  const file = (dir: string, id: string, ext: string) => `${dir}${id}${ext}`
  const program = ts.createProgram(
    ids.flatMap((id) => [file(theirsDir, id, ".d.ts"), file(oursDir, id, ".ts")]),
    {
      noEmit: true,
      skipLibCheck: true,
      strict: true,
      target: ts.ScriptTarget.ES2023,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: [],
    },
  )
  const checker = program.getTypeChecker()
  /** A property's name; unique-symbol keys (`[customFetch]`) by how they are written, as each side has its own symbol. */
  const nameOf = (p: ts.Symbol) => {
    const decl = p.valueDeclaration ?? p.declarations?.[0]
    return decl && ts.isPropertySignature(decl) && ts.isComputedPropertyName(decl.name) ? decl.name.getText() : p.name
  }
  /** Property names of the default export's first parameter, or null for a module without one (type-only). */
  const names = (path: string): string[] | null => {
    const source = program.getSourceFile(path)
    const module = source && checker.getSymbolAtLocation(source)
    const exported = module && checker.getExportsOfModule(module).find((s) => s.escapedName === "default")
    if (!source || !exported) return null
    const fn = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
    const parameter = checker.getTypeOfSymbolAtLocation(fn, source).getCallSignatures()[0]?.parameters[0]
    if (!parameter) return null
    const type = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(parameter, source))
    return checker.getPropertiesOfType(checker.getApparentType(type)).map(nameOf)
  }
  const out = new Map<string, { theirs: string[]; ours: string[] }>()
  for (const id of ids) {
    const theirs = names(file(theirsDir, id, ".d.ts"))
    const ours = names(file(oursDir, id, ".ts"))
    if (theirs) out.set(id, { theirs, ours: ours ?? [] })
  }
  return out
}

describe("option parity with Auth.js presets", () => {
  const options = optionNames()
  // Guards against a resolution failure that would make every comparison vacuous.
  it("compares the presets both sides ship", () => {
    expect(options.size).toBeGreaterThan(90)
    expect(options.get("auth0")!.theirs).toContain("issuer")
    expect(options.get("auth0")!.ours).toContain("[customFetch]")
  })

  it.each([...options.keys()])("%s accepts every option Auth.js's preset accepts", (id) => {
    const { theirs, ours } = options.get(id)!
    const allowed = { ...NOT_SUPPORTED["*"], ...NOT_SUPPORTED[id] }
    const missing = theirs.filter((name) => !ours.includes(name) && !(name in allowed))
    expect(missing, `options of Auth.js's ${id} preset missing from ours`).toEqual([])
    // Every provider-specific allow-list entry must still be about a gap.
    const stale = Object.keys(NOT_SUPPORTED[id] ?? {}).filter((name) => !theirs.includes(name) || ours.includes(name))
    expect(stale, `allow-list entries for ${id} that are no longer gaps`).toEqual([])
  })

  it("keeps the allow-list for every provider relevant", () => {
    for (const name of Object.keys(NOT_SUPPORTED["*"]!)) {
      expect([...options.values()].some(({ theirs, ours }) => theirs.includes(name) && !ours.includes(name)), name).toBe(true)
    }
    for (const id of Object.keys(NOT_SUPPORTED).filter((k) => k !== "*")) expect(options.has(id), id).toBe(true)
  })
})

describe("options added for parity do what Auth.js's do", () => {
  const signIn = async (provider: unknown) => {
    const config: AuthConfig = { secret: SECRET, trustHost: true, providers: [{ clientId: "c", clientSecret: "s", ...(provider as object) } as never] }
    return location(await startSignIn(new Browser(direct(config)), "dribbble"))
  }

  it("dribbble: `scope` sets the requested scope, `public` by default", async () => {
    expect((await signIn(Dribbble())).searchParams.get("scope")).toBe("public")
    expect((await signIn(Dribbble({ scope: "public upload" }))).searchParams.get("scope")).toBe("public upload")
    expect(Dribbble({ scope: "public upload" }).options).not.toHaveProperty("scope")
  })

  it("microsoft-entra-id: `profilePhotoSize` reads the Graph photo at that size into image", async () => {
    const calls: { url: string; authorization: string | null }[] = []
    const graph = async (url: string | URL | Request, init?: RequestInit) => {
      calls.push({ url: String(url), authorization: new Headers(init?.headers).get("authorization") })
      return new Response(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]), { headers: { "content-type": "image/jpeg" } })
    }
    const claims = { sub: "s", oid: "o", tid: "t", name: "Ada", email: "ada@example.com", ver: "2.0", iss: "i", aud: "a" } as const
    const tokens = { access_token: "graph-token", token_type: "bearer" } as never

    const withPhoto = MicrosoftEntraID({ profilePhotoSize: 96, [customFetch]: graph as typeof fetch })
    expect(withPhoto.authorization).toMatchObject({ params: { scope: expect.stringContaining("User.Read") } })
    expect(withPhoto.options).not.toHaveProperty("profilePhotoSize")
    const user = await withPhoto.profile!(claims, tokens)
    expect(calls).toEqual([{ url: "https://graph.microsoft.com/v1.0/me/photos/96x96/$value", authorization: "Bearer graph-token" }])
    expect(user.image).toBe("data:image/jpeg;base64,/9j/4A==")

    const failing = MicrosoftEntraID({ profilePhotoSize: 48, [customFetch]: (async () => new Response("", { status: 404 })) as typeof fetch })
    expect((await failing.profile!(claims, tokens)).image).toBeNull()

    calls.length = 0
    const without = MicrosoftEntraID({ [customFetch]: graph as typeof fetch })
    expect(without.authorization).toBeUndefined()
    expect((await without.profile!(claims, tokens)).image).toBeNull()
    expect(calls).toEqual([])
  })
})
