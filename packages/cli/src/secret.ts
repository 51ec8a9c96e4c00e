import { readFile, writeFile } from "node:fs/promises"

/** 32 random bytes from the platform CSPRNG, as 64 hex characters (spec §5.1). */
export function generateSecret(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex")
}

/**
 * Puts `AUTH_SECRET=<secret>` into an env file, keeping every other line. An existing
 * `AUTH_SECRET` is only replaced with `force`: replacing it signs every user out.
 */
export async function writeSecret(file: string, secret: string, force = false): Promise<"created" | "added" | "replaced" | "kept"> {
  let text: string | undefined
  try {
    text = await readFile(file, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error
  }
  const line = `AUTH_SECRET="${secret}" # Added by \`portcullis secret\`. Keep it secret.`
  if (text === undefined) {
    await writeFile(file, `${line}\n`, { mode: 0o600 })
    return "created"
  }
  const lines = text.split(/\r?\n/)
  const index = lines.findIndex((l) => /^\s*(export\s+)?AUTH_SECRET\s*=/.test(l))
  if (index !== -1) {
    if (!force) return "kept"
    lines[index] = line
    await writeFile(file, lines.join("\n"))
    return "replaced"
  }
  const needsNewline = text.length > 0 && !text.endsWith("\n")
  await writeFile(file, `${text}${needsNewline ? "\n" : ""}${line}\n`)
  return "added"
}
