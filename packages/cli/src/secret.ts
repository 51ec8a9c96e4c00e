import { constants } from "node:fs"
import { lstat, open, readlink, rename, rm, type FileHandle } from "node:fs/promises"
import { basename, dirname, join } from "node:path"

/** 32 random bytes from the platform CSPRNG, as 64 hex characters (spec §5.1). */
export function generateSecret(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex")
}

/** Why `writeSecret` left a file alone: the message says what to do. */
export class EnvFileRefused extends Error {}

const SECRET_LINE = /^(\s*)(export\s+)?AUTH_SECRET\s*=/

/**
 * Puts `AUTH_SECRET=<secret>` into an env file, keeping every other line and the file's line
 * ending. An existing `AUTH_SECRET` is only replaced with `force`: replacing it signs every
 * user out. Throws {@link EnvFileRefused} for a symbolic link or a read-only file.
 *
 * The file is never rewritten in place: the new text goes to a temporary file beside it,
 * which then replaces it in one rename, so a reader (or a crash, or a full disk) never sees
 * half a file. A lock file beside it makes two runs at once take turns, so the second finds
 * the first's secret instead of overwriting it.
 */
export async function writeSecret(file: string, secret: string, force = false): Promise<"created" | "added" | "replaced" | "kept"> {
  return withLock(file, async () => {
    const existing = await readExisting(file)
    const line = `AUTH_SECRET="${secret}" # Added by \`portcullis secret\`. Keep it secret.`
    if (!existing) {
      await replaceFile(file, `${line}\n`, 0o600)
      return "created"
    }
    const { text, mode } = existing
    // A file written on Windows keeps CRLF: mixed endings confuse editors and some loaders.
    const eol = text.includes("\r\n") ? "\r\n" : "\n"
    const lines = text.split(/\r?\n/)
    const index = lines.findIndex((l) => SECRET_LINE.test(l))
    if (index !== -1) {
      if (!force) return "kept"
      const [, indent = "", exported = ""] = SECRET_LINE.exec(lines[index]!)!
      // Every later AUTH_SECRET goes too: dotenv and `node --env-file` let the last one win,
      // so a duplicate left below would keep the old secret in force.
      const kept = lines.filter((l, i) => i <= index || !SECRET_LINE.test(l))
      kept[index] = `${indent}${exported}${line}`
      await replaceFile(file, kept.join(eol), mode)
      return "replaced"
    }
    const needsNewline = text.length > 0 && !text.endsWith("\n")
    await replaceFile(file, `${text}${needsNewline ? eol : ""}${line}${eol}`, mode)
    return "added"
  })
}

/** The file's text and mode, or undefined when there is none; refuses what it must not write. */
async function readExisting(file: string): Promise<{ text: string; mode: number } | undefined> {
  let handle: FileHandle
  try {
    // O_NOFOLLOW: a link (even a dangling one) is refused rather than written through to a
    // file outside the project, such as a shared or committed one. O_NONBLOCK: opening a
    // named pipe would wait for a writer forever; this way it opens, and is refused below.
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === "ENOENT") return undefined
    if (code === "ELOOP" || (await isLink(file))) {
      throw new EnvFileRefused(`it is a symbolic link to ${await readlink(file)}; pass --file with that path to write there`)
    }
    throw error
  }
  try {
    const stats = await handle.stat()
    if (stats.isDirectory()) throw new EnvFileRefused("it is a directory")
    if (!stats.isFile()) throw new EnvFileRefused("it is not a regular file")
    // Checked on the mode rather than left to open(): root may write any file, and a file its
    // owner made read-only is a "do not touch" for root as well.
    if ((stats.mode & 0o200) === 0) throw new EnvFileRefused("it is read-only")
    return { text: await handle.readFile("utf8"), mode: stats.mode & 0o7777 }
  } finally {
    await handle.close()
  }
}

async function isLink(file: string): Promise<boolean> {
  try {
    return (await lstat(file)).isSymbolicLink()
  } catch {
    return false
  }
}

/** Writes `text` to a new file beside `file` with `mode`, then renames it over `file`. */
async function replaceFile(file: string, text: string, mode: number): Promise<void> {
  const temp = join(dirname(file), `.${basename(file)}.${generateSecret().slice(0, 12)}.tmp`)
  // "wx": never reuse a file that is already there (a planted link, say).
  const handle = await open(temp, "wx", 0o600)
  try {
    await handle.writeFile(text)
    // The umask may have narrowed the mode asked for above; the old file's mode is what counts.
    await handle.chmod(mode)
    await handle.sync()
  } catch (error) {
    await handle.close()
    await rm(temp, { force: true })
    throw error
  }
  await handle.close()
  try {
    await rename(temp, file)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
}

/** How long a run waits for another's lock before giving up (a run takes milliseconds). */
const LOCK_WAIT_MS = 5_000

async function withLock<T>(file: string, run: () => Promise<T>): Promise<T> {
  const lock = `${file}.portcullis-lock`
  const deadline = Date.now() + LOCK_WAIT_MS
  for (;;) {
    try {
      await (await open(lock, "wx", 0o600)).close()
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      if (Date.now() > deadline) {
        throw new EnvFileRefused(`${basename(lock)} is there: another \`secret --write\` is running, or one was stopped midway (then delete ${basename(lock)})`)
      }
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }
  try {
    return await run()
  } finally {
    await rm(lock, { force: true })
  }
}
