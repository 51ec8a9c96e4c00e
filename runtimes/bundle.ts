/**
 * Bundles code the way an app's build does for an edge target, with esbuild: the package
 * `exports` conditions a Cloudflare Worker build resolves (`workerd`, `worker`, `browser`)
 * or the ones Vercel's edge runtime builds resolve (`edge-light`, `worker`, `browser`),
 * platform `neutral` so nothing Node-specific is assumed.
 *
 * Every import of a Node built-in (`node:*` or a bare `crypto`, `fs`, …) is recorded with
 * its importer and left external, so a test can name the module that pulled it in instead
 * of failing on esbuild's "could not resolve".
 * @module
 */
import { builtinModules } from "node:module"
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
  code: string
  nodeImports: NodeImport[]
  /** Input files (relative to the repository root), to see what went in. */
  inputs: string[]
  /** For each input, the inputs it imports: to name the module that pulled another in. */
  imports: Record<string, string[]>
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
): Promise<EdgeBundle> {
  const nodeImports: NodeImport[] = []
  const { conditions, format } = targets[target]
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
  })
  const inputs = result.metafile.inputs
  const imports = Object.fromEntries(Object.entries(inputs).map(([file, input]) => [file, input.imports.filter((i) => !i.external).map((i) => i.path)]))
  return { code: result.outputFiles[0]!.text, nodeImports, inputs: Object.keys(inputs), imports }
}
