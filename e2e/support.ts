import { spawn, type ChildProcess } from "node:child_process"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { chromium, type Browser } from "playwright-core"

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

/**
 * Whether browser tests can run. In CI a missing Chromium is a failure (the CI script
 * installs it); elsewhere the suite is skipped with one line saying what to install.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true
  if (process.env.CI === "true") throw new Error(`Chromium not found at ${CHROMIUM}: CI must install it (apt-get install -y chromium)`)
  console.warn(`skipping browser tests: install Chromium (apt-get install -y chromium) or set CHROMIUM_PATH`)
  return false
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  })
}

/** Starts an example server as its own process and waits for its "listening on" line. */
export async function startExample(entry: string, env: Record<string, string> = {}): Promise<{ url: string; process: ChildProcess; output: string[]; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [entry], {
    env: { ...process.env, PORT: "0", DEMO_DATA_DIR: mkdtempSync(join(tmpdir(), "portcullis-demo-")), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  })
  const output: string[] = []
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`example did not start:\n${output.join("")}`)), 30_000)
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString())
      const m = /listening on (http:\/\/\S+)/.exec(output.join(""))
      if (m) {
        clearTimeout(timer)
        resolve(m[1]!)
      }
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", (c: Buffer) => output.push(c.toString()))
    child.on("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`example exited with ${code}:\n${output.join("")}`))
    })
  })
  return {
    url,
    process: child,
    output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once("exit", () => resolve())
        child.kill("SIGTERM")
      }),
  }
}

export const artifacts = join(import.meta.dirname, "..", "test-results")
