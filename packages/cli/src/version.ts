import { readFile } from "node:fs/promises"

/** This package's version, from its package.json (one directory above both `src/` and `dist/`). */
export async function cliVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
  return pkg.version
}
