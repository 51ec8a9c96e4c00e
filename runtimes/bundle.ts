/**
 * Bundles code the way an app's build does for an edge target, with esbuild: the package
 * `exports` conditions a Cloudflare Worker build resolves (`workerd`, `worker`, `browser`)
 * or the ones Vercel's edge runtime builds resolve (`edge-light`, `worker`, `browser`),
 * platform `neutral` so nothing Node-specific is assumed.
 *
 * With `splitting`, modules reached only through `import()` go to chunks of their own, as
 * bundlers that split code (Vite/Rollup, webpack and so Next.js, esbuild with `splitting`)
 * emit them: `inputs` and `code` are then what the app loads at startup (the entry chunk
 * and the chunks it imports statically), `lazyInputs` what it loads only on demand.
 *
 * Every import of a Node built-in (`node:*` or a bare `crypto`, `fs`, …) is recorded with
 * its importer and left external, so a test can name the module that pulled it in instead
 * of failing on esbuild's "could not resolve".
 * @module
 */
import { builtinModules } from "node:module"
import { relative, resolve as resolvePath } from "node:path"
import { build, type Plugin } from "esbuild"

/** Which edge build to imitate. */
export type EdgeTarget = "workerd" | "edge-light"

const targets = {
  workerd: { conditions: ["workerd", "worker", "browser"], format: "esm" },
  "edge-light": { conditions: ["edge-light", "worker", "browser"], format: "iife" },
} as const

/** A Node built-in some module of the bundle imports. */
export interface NodeImport {
  specifier: string
  importer: string
}

export interface EdgeBundle {
  /** The bundle; with `splitting`, the chunks loaded at startup, concatenated. */
  code: string
  nodeImports: NodeImport[]
  /** Input files (relative to the repository root), to see what went in; with `splitting`, those loaded at startup. */
  inputs: string[]
  /** With `splitting`: the input files only chunks loaded through `import()` carry. */
  lazyInputs: string[]
  /**
   * For each input, the inputs it imports: to name the module that pulled another in.
   * With `splitting`, static imports only (an `import()` is not loaded at startup).
   */
  imports: Record<string, string[]>
}

/** Options of {@link bundleForEdge}. */
export interface BundleOptions {
  /** Split modules reached only through `import()` into chunks of their own (ESM targets only). */
  splitting?: boolean
  /** Packages the platform provides and the app's build leaves out (e.g. `next/*` in a Next.js edge build). */
  external?: string[]
}

const builtins = new Set(builtinModules)

function recordNodeImports(into: NodeImport[]): Plugin {
  return {
    name: "record-node-imports",
    setup(on) {
      on.onResolve({ filter: /.*/ }, (args) => {
        const bare = args.path.replace(/^node:/, "").split("/")[0]!
        if (!args.path.startsWith("node:") && !builtins.has(bare) && !builtins.has(args.path)) return undefined
        into.push({ specifier: args.path, importer: args.importer })
        return { path: args.path, external: true }
      })
    },
  }
}

/**
 * Bundles one entry file (or a module source given as `contents`, resolved from `resolveDir`)
 * for an edge target.
 */
export async function bundleForEdge(
  entry: { file: string } | { contents: string; resolveDir: string },
  target: EdgeTarget,
  { splitting = false, external = [] }: BundleOptions = {},
): Promise<EdgeBundle> {
  const nodeImports: NodeImport[] = []
  const { conditions, format } = targets[target]
  if (splitting && format !== "esm") throw new Error(`Code splitting needs an ESM target; ${target} bundles are ${format}`)
  const result = await build({
    ...("file" in entry ? { entryPoints: [entry.file] } : { stdin: { contents: entry.contents, resolveDir: entry.resolveDir, loader: "ts", sourcefile: "entry.ts" } }),
    bundle: true,
    write: false,
    metafile: true,
    format,
    platform: "neutral",
    target: "es2022",
    conditions: [...conditions],
    mainFields: ["browser", "module", "main"],
    logLevel: "silent",
    plugins: [recordNodeImports(nodeImports)],
    external,
    // Output paths only name the chunks: nothing is written.
    ...(splitting && { splitting: true, outdir: "/edge-bundle", chunkNames: "chunk-[hash]" }),
  })
  const { inputs, outputs } = result.metafile
  const imports = Object.fromEntries(
    Object.entries(inputs).map(([file, input]) => [file, input.imports.filter((i) => !i.external && !(splitting && i.kind === "dynamic-import")).map((i) => i.path)]),
  )
  if (!splitting) return { code: result.outputFiles[0]!.text, nodeImports, inputs: Object.keys(inputs), lazyInputs: [], imports }

  // The entry chunk is the output of the app's own entry. (Not "the entry point no
  // `import()` names": a CommonJS module loaded with `import()` gets an
  // entry-point chunk that the importer reaches through a wrapper chunk instead.)
  const entryName = "file" in entry ? relative(process.cwd(), entry.file) : "entry.ts"
  const entryChunk = Object.keys(outputs).find((path) => outputs[path]!.entryPoint === entryName)
  if (!entryChunk) throw new Error("esbuild emitted no entry chunk")
  const startup = new Set<string>()
  const visit = (path: string) => {
    if (startup.has(path) || !outputs[path]) return
    startup.add(path)
    for (const i of outputs[path]!.imports) if (i.kind === "import-statement") visit(i.path)
  }
  visit(entryChunk)
  const atStartup = new Set([...startup].flatMap((path) => Object.keys(outputs[path]!.inputs)))
  const text = new Map(result.outputFiles.map((f) => [f.path, f.text]))
  const code = [...startup].map((path) => text.get(resolvePath(path)) ?? "").join("\n")
  return { code, nodeImports, inputs: [...atStartup], lazyInputs: Object.keys(inputs).filter((file) => !atStartup.has(file)), imports }
}
