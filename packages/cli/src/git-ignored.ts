import { execFile } from "node:child_process"
import { basename, dirname } from "node:path"

/**
 * Whether git would leave `file` out of a commit: "ignored"; "committable" (not matched by
 * .gitignore, or already tracked); "unknown" when there is no git or no repository.
 *
 * `core.fsmonitor` is switched off for the call: a repository's own config may name a
 * program there, and a cloned project must not get to run one through this command.
 */
export function gitIgnoreStatus(file: string): Promise<"ignored" | "committable" | "unknown"> {
  return new Promise((resolve) => {
    execFile(
      "git",
      ["-c", "core.fsmonitor=false", "check-ignore", "-q", "--", basename(file)],
      { cwd: dirname(file), timeout: 5_000, windowsHide: true },
      (error) => {
        if (!error) return resolve("ignored")
        // 1: not ignored (or tracked: check-ignore skips tracked files); 128 and spawn errors: no answer.
        resolve((error as { code?: unknown }).code === 1 ? "committable" : "unknown")
      },
    )
  })
}
