/**
 * The line protocol of the admin package's two-process tests: a worker (`fixtures/*-worker.ts`)
 * answers each command on stdin with one line on stdout; `nextLine` waits for it, and fails
 * with the worker's stderr if it exits first.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process"

export function nextLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = ""
    let stderr = ""
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString()
      const end = buffered.indexOf("\n")
      if (end < 0) return
      child.stdout.off("data", onData)
      resolve(buffered.slice(0, end))
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()))
    child.once("exit", (code) => reject(new Error(`worker exited (${code}): ${stderr}`)))
  })
}
