/** Where the CLI reads and writes: the process's, or a test's. */
export interface Io {
  out(s: string): void
  err(s: string): void
  env: Record<string, string | undefined>
  /** The directory relative paths and `package.json` are read from. */
  cwd: string
}
