import { createHash, createHmac } from "node:crypto"
import { describe, expect, it } from "vitest"
import type { Adapter, VerificationToken } from "@portcullis/core/adapters"
import type { EmailConfig } from "@portcullis/core/providers/email"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { SECRET } from "../helpers.js"
import { confirmVerification, LIGHT, passwordApp, passwordSignIn, postStep, seedUser, STRONG } from "./support.js"

/**
 * What a password link is bound to (`linkState` and the row's HMAC in
 * `lib/password-flows/tokens.ts`), seen from outside: the exact form of the row an issued
 * link is stored as, and which changes of the account end a verification link.
 *
 * The row form is a contract, not a detail: rows outlive a deploy, and instances of two
 * releases share one store during a rolling upgrade — a link mailed by one is used on the
 * other. So it is pinned here, computed independently of the code that makes it.
 */

const OLD_SECRET = "an-earlier-secret-with-at-least-32-characters"

/** A mailer that keeps each address's last link instead of sending it. */
function keptLinks() {
  const links = new Map<string, string>()
  const mailer = {
    id: "kept",
    type: "email",
    name: "Kept",
    sendVerificationRequest: async ({ identifier, url }: { identifier: string; url: string }) => void links.set(identifier, url),
  } as EmailConfig
  return { mailer, linkFor: (address: string) => links.get(address)! }
}

/** `adapter`, with every verification token it is asked to store kept in `rows` too. */
function recording(adapter: Adapter): { adapter: Adapter; rows: VerificationToken[] } {
  const rows: VerificationToken[] = []
  return { rows, adapter: { ...adapter, createVerificationToken: (row) => (rows.push(row), adapter.createVerificationToken!(row)) } }
}

/** The row's hash as the current form defines it: HMAC-SHA-256 under the secrets joined with ",", over JSON [purpose tag, token, state]. */
const rowHash = (secrets: string[], purpose: "verify" | "reset", token: string, state: string) =>
  createHmac("sha256", secrets.join(",")).update(JSON.stringify([`portcullis-password-${purpose}`, token, state])).digest("hex")

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

describe("the row an issued link is stored as", () => {
  const secrets = [SECRET, OLD_SECRET]

  it("a verification link: the HMAC of its purpose, its token and the user's id with `unverified`", async () => {
    const { adapter, rows } = recording(MemoryAdapter())
    const { mailer, linkFor } = keptLinks()
    const app = passwordApp(adapter, { provider: { mailer, hashing: LIGHT }, extra: { secret: secrets } })
    await postStep(app.browser(), "signup", { email: "ada@example.com", password: STRONG })
    await app.mail.settled()
    const user = (await adapter.getUserByEmail!("ada@example.com"))!
    const token = new URL(linkFor("ada@example.com")).searchParams.get("token")!
    expect(rows).toHaveLength(1)
    expect(rows[0]!.identifier).toBe("password-verify:ada@example.com")
    expect(rows[0]!.token).toBe(rowHash(secrets, "verify", token, `${user.id}\nunverified`))
  })

  it("a reset link: the HMAC of its purpose, its token and the user's id with a digest of the stored password hash", async () => {
    const { adapter, rows } = recording(MemoryAdapter())
    const { mailer, linkFor } = keptLinks()
    const app = passwordApp(adapter, { provider: { mailer, hashing: LIGHT }, extra: { secret: secrets } })
    const user = await seedUser(adapter, { email: "grace@example.com", password: "the password before the reset" })
    await postStep(app.browser(), "forgot", { email: "grace@example.com" })
    await app.mail.settled()
    const token = new URL(linkFor("grace@example.com")).searchParams.get("token")!
    const stored = (await adapter.getUserPassword!(user.id))!
    expect(rows).toHaveLength(1)
    expect(rows[0]!.identifier).toBe("password-reset:grace@example.com")
    expect(rows[0]!.token).toBe(rowHash(secrets, "reset", token, `${user.id}\n${sha256(`portcullis-password-state:${stored}`)}`))
  })
})

describe("the row of a reset link for a user without a password", () => {
  it("binds the digest of no hash at all (a user who signs in another way, or was replaced and has none yet)", async () => {
    const { adapter, rows } = recording(MemoryAdapter())
    const { mailer, linkFor } = keptLinks()
    const app = passwordApp(adapter, { provider: { mailer, hashing: LIGHT } })
    const user = await adapter.createUser!({ id: crypto.randomUUID(), email: "lin@example.com", emailVerified: new Date(), name: null, image: null })
    await postStep(app.browser(), "forgot", { email: "lin@example.com" })
    await app.mail.settled()
    const token = new URL(linkFor("lin@example.com")).searchParams.get("token")!
    expect(rows[0]!.token).toBe(rowHash([SECRET], "reset", token, `${user.id}\n${sha256("portcullis-password-state:")}`))
  })
})

describe("a verification link across a password change", () => {
  // Documented (docs/passwords.md, "Every earlier link dies with the state it was made for"):
  // a verification link is bound to the user and whether its address is verified, not to
  // the password. With emailVerification "optional" the registrant can sign in and change
  // the password before opening the mail; the link still proves the address, and the
  // password typed on the confirm page is checked against the hash stored then.
  it("still verifies the address, with the new password typed, and keeps the user", async () => {
    const adapter = MemoryAdapter()
    const { mailer, linkFor } = keptLinks()
    const app = passwordApp(adapter, {
      provider: { mailer, hashing: LIGHT, emailVerification: "optional" },
      extra: { session: { strategy: "jwt", registry: new MemorySessionRegistry() } },
    })
    const here = app.browser()
    await postStep(here, "signup", { email: "ada@example.com", password: STRONG })
    const link = linkFor("ada@example.com")
    const before = (await adapter.getUserByEmail!("ada@example.com"))!
    expect((await passwordSignIn(here, { email: "ada@example.com", password: STRONG })).error).toBeNull()
    const changed = "a changed and still unguessable passphrase"
    await here.request("/auth/password/change", { form: { csrfToken: await here.csrfToken(), currentPassword: STRONG, password: changed } })
    expect((await passwordSignIn(app.browser(), { email: "ada@example.com", password: changed })).error).toBeNull()

    const confirmed = await confirmVerification(app.browser(), link, changed)
    expect(confirmed.path).toBe("/auth/password/verified")
    expect(confirmed.search?.get("password")).toBeNull()
    const after = (await adapter.getUserByEmail!("ada@example.com"))!
    expect(after.id).toBe(before.id)
    expect(after.emailVerified).toBeInstanceOf(Date)
  })
})
