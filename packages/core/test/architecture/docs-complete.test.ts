/**
 * Issue #16: the reference docs stay complete. The lists come from the code itself — the
 * error classes `@portcullis/core/errors` exports, the options of the configuration types
 * (read with the TypeScript compiler API), the environment variables the sources read —
 * so a new error, option or variable without documentation fails here.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import * as errors from "@portcullis/core/errors"
import { errorPageMessages, signinErrorMessages } from "../../src/lib/pages/messages.js"

const root = resolve(import.meta.dirname, "../../../..")
const coreSrc = join(root, "packages/core/src")
const doc = (name: string) => readFileSync(join(root, "docs", name), "utf8")

/** Lines that document `name`: a heading or a table row naming it in backticks. */
function documents(text: string, name: string): boolean {
  const ticked = "`" + name + "`"
  return text.split("\n").some((line) => (/^#{2,6} /.test(line) || line.startsWith("|")) && line.includes(ticked))
}

/** The part of `text` under the first heading matching `heading`, up to the next heading of the same or a higher level. */
function section(text: string, heading: RegExp): string {
  const lines = text.split("\n")
  const start = lines.findIndex((l) => /^#{1,6} /.test(l) && heading.test(l))
  if (start === -1) return ""
  const level = /^#+/.exec(lines[start]!)![0].length
  const end = lines.findIndex((l, i) => i > start && new RegExp(`^#{1,${level}} `).test(l))
  return lines.slice(start, end === -1 ? undefined : end).join("\n")
}

// ---------------------------------------------------------------------------------------
// The TypeScript program over core's sources, for the configuration types.

const program = ts.createProgram([join(coreSrc, "types.ts"), join(coreSrc, "providers/index.ts")], {
  strict: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  skipLibCheck: true,
  noEmit: true,
})
const checker = program.getTypeChecker()

function interfaceDecl(file: string, name: string): ts.InterfaceDeclaration {
  const source = program.getSourceFile(join(coreSrc, file))
  if (!source) throw new Error(`${file} is not in the program`)
  const found = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name)
  if (!found) throw new Error(`interface ${name} not found in ${file}`)
  return found
}

/** Member names as written (`providers`, `[customFetch]`). */
function memberNames(decl: ts.InterfaceDeclaration): string[] {
  return decl.members.filter((m) => m.name).map((m) => m.name!.getText())
}

/** For each option whose type is an object of named options (`session`, `cookies`, …), its keys as `option.key`. */
function nestedOptions(decl: ts.InterfaceDeclaration, skip: ReadonlySet<string>): string[] {
  const out: string[] = []
  for (const member of decl.members) {
    if (!ts.isPropertySignature(member) || !member.type || !ts.isIdentifier(member.name)) continue
    const name = member.name.text
    if (skip.has(name)) continue
    const type = checker.getNonNullableType(checker.getTypeFromTypeNode(member.type))
    if (type.getCallSignatures().length || checker.isArrayType(type) || !(type.flags & ts.TypeFlags.Object)) continue
    for (const prop of checker.getPropertiesOfType(type)) out.push(`${name}.${prop.getName()}`)
  }
  return out
}

// ---------------------------------------------------------------------------------------
// Environment variables read in packages/*/src.

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts") && !e.name.includes(".generated.") ? [path] : []
  })
}

/** An environment object: `env`, `process.env`, `x.env`, `processEnv()`. */
function isEnvObject(node: ts.Expression): boolean {
  if (ts.isIdentifier(node)) return node.text === "env"
  if (ts.isPropertyAccessExpression(node)) return node.name.text === "env"
  if (ts.isCallExpression(node)) return ts.isIdentifier(node.expression) && node.expression.text === "processEnv"
  if (ts.isParenthesizedExpression(node)) return isEnvObject(node.expression)
  return false
}

interface EnvRead {
  /** A variable name, or a pattern for a templated one (`AUTH_SECRET_${i}`). */
  name: string
  pattern: RegExp
  where: string
}

function envReads(): { reads: EnvRead[]; unknown: string[] } {
  const files = readdirSync(join(root, "packages"), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => {
      try {
        return sourceFiles(join(root, "packages", e.name, "src"))
      } catch {
        return []
      }
    })
  const envProgram = ts.createProgram(files, { noResolve: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022, allowJs: false, jsx: ts.JsxEmit.Preserve })
  const envChecker = envProgram.getTypeChecker()
  const reads: EnvRead[] = []
  const unknown: string[] = []
  for (const file of files) {
    const source = envProgram.getSourceFile(file)!
    const where = (node: ts.Node) => `${relative(root, file)}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`
    const literal = (name: string, node: ts.Node) => reads.push({ name, pattern: new RegExp(`\\b${name}\\b`), where: where(node) })
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyAccessExpression(node) && isEnvObject(node.expression) && /^[A-Z][A-Z0-9_]*$/.test(node.name.text)) {
        literal(node.name.text, node)
      } else if (ts.isElementAccessExpression(node) && isEnvObject(node.expression)) {
        const arg = node.argumentExpression
        if (ts.isStringLiteralLike(arg) && !ts.isNoSubstitutionTemplateLiteral(arg)) literal(arg.text, node)
        else if (ts.isTemplateExpression(arg)) {
          // `AUTH_${ID}_SECRET` must be documented in some concrete or placeholder form.
          const parts = [arg.head.text, ...arg.templateSpans.map((s) => s.literal.text)].map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
          const shown = [arg.head.text, ...arg.templateSpans.map((s) => `<…>${s.literal.text}`)].join("")
          reads.push({ name: shown, pattern: new RegExp(`\\b${parts.join("[A-Z0-9_<>]+")}\\b`), where: where(node) })
        } else {
          const type = envChecker.getTypeAtLocation(arg)
          const names = (type.isUnion() ? type.types : [type]).map((t) => (t.isStringLiteral() ? t.value : undefined))
          if (names.length && names.every((n) => n !== undefined)) for (const n of names) literal(n!, node)
          else unknown.push(`${where(node)}: ${node.getText(source)}`)
        }
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return { reads, unknown }
}

// ---------------------------------------------------------------------------------------

describe("docs/errors.md", () => {
  const text = doc("errors.md")
  const classes = Object.entries(errors).filter(
    ([, value]) => typeof value === "function" && (value === errors.AuthError || value.prototype instanceof errors.AuthError),
  ) as [string, typeof errors.AuthError][]

  it("finds the error classes to check", () => {
    expect(classes.length).toBeGreaterThan(30)
  })

  it("has a heading or row for every error class @portcullis/core/errors exports, under its exported name", () => {
    const missing = classes.map(([name]) => name).filter((name) => !documents(text, name))
    expect(missing).toEqual([])
  })

  it("names the stable type of every error class", () => {
    const missing = [...new Set(classes.map(([, cls]) => cls.type))].filter((type) => !text.includes("`" + type + "`") && !text.includes(`"${type}"`))
    expect(missing).toEqual([])
  })

  it("explains every ?error= code the error page and the sign-in page know", () => {
    const codes = [...Object.keys(errorPageMessages), ...Object.keys(signinErrorMessages)].filter((c) => c !== "default")
    const missing = [...new Set(codes)].filter((code) => !documents(text, code))
    expect(missing).toEqual([])
  })

  it("lists every warning code of the logger", () => {
    const alias = program
      .getSourceFile(join(coreSrc, "base-types.ts"))!
      .statements.find((s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === "WarningCode")!
    const type = checker.getTypeFromTypeNode(alias.type)
    const codes = (type.isUnion() ? type.types : [type]).map((t) => (t as ts.StringLiteralType).value)
    expect(codes.length).toBeGreaterThan(5)
    const warnings = section(text, /^## Warnings/)
    expect(codes.filter((code) => !documents(warnings, code))).toEqual([])
  })
})

describe("docs/configuration.md", () => {
  const text = doc("configuration.md")

  it("has an entry for every top-level option of AuthConfig", () => {
    const keys = memberNames(interfaceDecl("types.ts", "AuthConfig"))
    expect(keys).toContain("providers")
    expect(keys).toContain("[customFetch]")
    expect(keys.filter((key) => !documents(text, key))).toEqual([])
  })

  it("has an entry for every key of the options that are objects (session, jwt, cookies, callbacks, events, pages, theme, logger, experimental)", () => {
    // The adapter's methods are the Adapter interface, documented in docs/adapters.md.
    const keys = nestedOptions(interfaceDecl("types.ts", "AuthConfig"), new Set(["adapter"]))
    expect(keys).toContain("session.hashTokens")
    expect(keys).toContain("cookies.sessionToken")
    expect(keys.filter((key) => !documents(text, key))).toEqual([])
  })

  it("documents the options each provider kind takes, in that kind's section", () => {
    const kinds: [string, string, RegExp][] = [
      ["providers/oauth.ts", "OAuth2Config", /^### OAuth and OIDC/],
      ["lib/email/provider-types.ts", "EmailConfig", /^### Email/],
      ["providers/credentials.ts", "CredentialsConfig", /^### Credentials/],
      ["lib/webauthn/provider-types.ts", "WebAuthnFields", /^### WebAuthn/],
    ]
    // Every provider has these; the kinds section documents them once.
    const common = new Set(["id", "name", "type", "options"])
    const missing: string[] = []
    for (const [file, name, heading] of kinds) {
      const part = section(text, heading)
      expect(part, `${name} section`).not.toBe("")
      for (const key of memberNames(interfaceDecl(file, name))) if (!common.has(key) && !documents(part, key)) missing.push(`${name}.${key}`)
    }
    expect(missing).toEqual([])
  })

  it("documents the options integrations add (SolidStart's prefix)", () => {
    const source = ts.createSourceFile("index.ts", readFileSync(join(root, "packages/solid-start/src/index.ts"), "utf8"), ts.ScriptTarget.ES2022, true)
    const decl = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === "SolidAuthConfig")!
    const keys = decl.members.map((m) => m.name!.getText(source))
    expect(keys).toContain("prefix")
    expect(keys.filter((key) => !documents(text, key))).toEqual([])
  })

  it("names every environment variable the sources read", () => {
    const { reads, unknown } = envReads()
    // An env read whose name cannot be worked out statically cannot be checked: name it.
    expect(unknown).toEqual([])
    for (const name of ["AUTH_SECRET", "AUTH_URL", "NEXTAUTH_URL", "AUTH_TRUSTED_ORIGINS", "VERCEL_URL", "CF_PAGES_URL"]) {
      expect(reads.map((r) => r.name)).toContain(name)
    }
    const envSection = section(text, /^## Environment variables/)
    const missing = [...new Map(reads.filter((r) => !r.pattern.test(envSection)).map((r) => [r.name, r.where])).entries()]
    expect(missing).toEqual([])
  })
})
