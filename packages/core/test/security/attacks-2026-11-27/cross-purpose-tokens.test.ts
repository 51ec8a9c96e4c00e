/**
 * Emailed tokens used for another purpose (2026-11-27). An app with magic links and
 * passwords keeps three kinds of emailed token in one verification-token table: magic
 * links (`<address>`, `sha256(token + secret)`), password verification and password reset
 * (`password-<purpose>:<address>`). `lib/password-flows/tokens.ts` promises that a password
 * token "cannot be used as a magic sign-in link". Here the attacker holds a password token
 * of her own and tries to open it at the magic-link callback.
 *
 * Found by this attack: password rows were kept as `sha256("portcullis-password-<purpose>:"
 * + token + ":" + secret)`, which is the magic-link hash of a token the attacker can write,
 * and the callback took any `email` as sent — so `token=portcullis-password-verify:<T>:` with
 * `email=password-verify:<address>` signed in a new, verified user of that "address". Now the
 * password rows are HMACs under the secret, and the callback refuses the identifiers of the
 * table's other namespaces (`lib/verification-identifiers.ts`): each alone closes it.
 *
 * Each layer has tests that fail when that layer alone is removed (issue 36):
 * - the HMAC row form: the first two cases look behind the refusal, taking the issued row
 *   with the hash the callback would compute for the forged token;
 * - the namespace refusal: "rows of another namespace in the old form" plants rows the hash
 *   does not protect (password links mailed before the HMAC, which the password endpoints
 *   still accept), so only the refusal stands between them and a session.
 */
import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { Browser, direct, SECRET } from "../../helpers.js"
import { redirectOf, requestLink, startSmtp, type TestSmtp } from "../../email/support.js"
import { confirmVerification, postStep, STRONG } from "../../password/support.js"
import {
  isReservedIdentifier,
  passwordTokenIdentifier,
  twoFactorChallengeIdentifier,
  webauthnChallengeIdentifier,
} from "../../../src/lib/verification-identifiers.js"
import { emailPasswordApp, sessionSet } from "./support.js"

let smtp: TestSmtp
beforeAll(async () => {
  smtp = await startSmtp()
})
afterAll(() => smtp.close())

const app = (extra: Partial<AuthConfig> = {}) => emailPasswordApp(smtp.url, {}, extra)

/** The magic-link callback URL for a given raw token and `email` parameter. */
function magicLink(token: string, email: string): string {
  const url = new URL("http://localhost:3000/auth/callback/email")
  url.searchParams.set("token", token)
  url.searchParams.set("email", email)
  return url.href
}

/** What the magic-link callback looks a token up by: Auth.js's `sha256(token + secret)`. */
const magicHash = (token: string) => createHash("sha256").update(`${token}${SECRET}`).digest("hex")


describe("a password token opened at the magic-link callback", () => {
  it("the sign-up verification token of Mallory's own address, with the password hash's prefix, signs nobody in", async () => {
    // Refused at the link (a password row's namespace) and, behind that, by the hash.
    const { adapter, browser } = app()
    const mallory = browser()
    const signedUp = await postStep(mallory, "signup", { email: "mallory@example.com", password: STRONG })
    expect(signedUp.location).toBeTruthy()
    expect(signedUp.path).not.toBe("/auth/error")
    const verify = new URL(smtp.linkFor("mallory@example.com"))
    expect(verify.pathname).toBe("/auth/password/verify")
    const token = verify.searchParams.get("token")!

    const forged = `portcullis-password-verify:${token}:`
    const response = await mallory.request(magicLink(forged, "password-verify:mallory@example.com"))
    expect(sessionSet(response)).toBe(false)
    expect(redirectOf(response).error).toBe("Verification")
    expect(await adapter.getUserByEmail!("password-verify:mallory@example.com")).toBeNull()
    // Behind the refusal (the HMAC layer alone): the row the callback would take for the
    // forged token is not there — the issued row is not the magic-link hash of anything she wrote.
    expect(await adapter.useVerificationToken!({ identifier: "password-verify:mallory@example.com", token: magicHash(forged) })).toBeNull()
  })

  it("a password reset token, with the prefix, is not consumed there (the reset link still works)", async () => {
    // The same construction with "portcullis-password-reset:" consumed the reset row.
    const { adapter, browser } = app()
    await adapter.createUser!({ id: "user-mallory", email: "mallory2@example.com", emailVerified: new Date() })
    const mallory = browser()
    await postStep(mallory, "forgot", { email: "mallory2@example.com" })
    const reset = new URL(smtp.linkFor("mallory2@example.com"))
    expect(reset.pathname).toBe("/auth/password/reset")
    const token = reset.searchParams.get("token")!

    const forged = `portcullis-password-reset:${token}:`
    const response = await mallory.request(magicLink(forged, "password-reset:mallory2@example.com"))
    expect(sessionSet(response)).toBe(false)
    // Behind the refusal (the HMAC layer alone): no row answers to the forged token's magic-link hash.
    expect(await adapter.useVerificationToken!({ identifier: "password-reset:mallory2@example.com", token: magicHash(forged) })).toBeNull()
    const done = await postStep(browser(), "reset", { token, email: "mallory2@example.com", password: `${STRONG} again` })
    expect(done.path).toBe("/auth/password/done")
  })

  it("an app that lets only listed addresses request magic links (the signIn callback's verificationRequest call) lets nobody else in by email", async () => {
    // The forged link skipped the verification-request step, where apps following Auth.js's
    // documented pattern apply their allow-list.
    const listed = new Set(["grace@example.com"])
    const { adapter, browser } = app({
      callbacks: { signIn: ({ user, account, email }) => (account?.provider === "email" && email?.verificationRequest ? listed.has(user.email ?? "") : true) },
    })
    const mallory = browser()
    await postStep(mallory, "signup", { email: "stranger@example.com", password: STRONG })
    const token = new URL(smtp.linkFor("stranger@example.com")).searchParams.get("token")!
    // The front door refuses her.
    const asked = await requestLink(browser(), "stranger@example.com")
    expect(redirectOf(asked).error).toBe("AccessDenied")
    const response = await mallory.request(magicLink(`portcullis-password-verify:${token}:`, "password-verify:stranger@example.com"))
    expect(sessionSet(response)).toBe(false)
    expect(await adapter.getUserByEmail!("password-verify:stranger@example.com")).toBeNull()
  })

  it("the hash alone holds too: no magic-link token hashes to a stored password row", async () => {
    // Behind the address check: what the store keeps for a password token is an HMAC, so the
    // magic link's `sha256(token + secret)` of the token the attack wrote is not it.
    const { adapter, config, mail } = app()
    const stored: { identifier: string; token: string }[] = []
    const create = adapter.createVerificationToken!.bind(adapter)
    adapter.createVerificationToken = (row) => (stored.push({ identifier: row.identifier, token: row.token }), create(row))
    const mallory = new Browser(mail.settling(direct(config)), "http://localhost:3000")
    await postStep(mallory, "signup", { email: "mallory4@example.com", password: STRONG })
    const token = new URL(smtp.linkFor("mallory4@example.com")).searchParams.get("token")!
    const row = stored.find((r) => r.identifier === "password-verify:mallory4@example.com")
    expect(row).toBeDefined()
    const magicHash = createHash("sha256").update(`portcullis-password-verify:${token}:${SECRET}`).digest("hex")
    expect(row!.token).not.toBe(magicHash)
    expect(row!.token).toMatch(/^[0-9a-f]{64}$/)
  })

  it("what held: a magic-link token is not accepted as a password reset token (the identifier prefix is fixed)", async () => {
    const { adapter, browser } = app()
    await adapter.createUser!({ id: "user-grace", email: "grace@example.com", emailVerified: new Date() })
    await requestLink(browser(), "grace@example.com")
    const magic = new URL(smtp.linkFor("grace@example.com"))
    const token = magic.searchParams.get("token")!
    const done = await postStep(browser(), "reset", { token, email: "grace@example.com", password: STRONG })
    expect(done.location).toBeTruthy()
    expect(done.path).not.toBe("/auth/password/done")
    // The magic link itself is untouched.
    const b = browser()
    await b.request(magic.href)
    expect((await b.session()).user.email).toBe("grace@example.com")
  })

  it("what held: a plain password token at the magic-link callback is refused", async () => {
    const { browser } = app()
    const mallory = browser()
    await postStep(mallory, "signup", { email: "mallory3@example.com", password: STRONG })
    const verify = new URL(smtp.linkFor("mallory3@example.com"))
    const response = await mallory.request(magicLink(verify.searchParams.get("token")!, "mallory3@example.com"))
    expect(sessionSet(response)).toBe(false)
    expect(redirectOf(response).error).toBe("Verification")
  })
})

/**
 * The namespace refusal alone (issue 36). A row the HMAC does not protect — a password link
 * stored in the form before it (`sha256("portcullis-password-<purpose>:" + token + ":" +
 * secret)`, still accepted by the password endpoints), or any row of another namespace that
 * happens to be the magic-link hash of a token the attacker can write — is planted straight
 * in the adapter; the attacker then opens it at the magic-link callback, naming the row's
 * identifier as the address. Only `readLink`'s refusal stands in the way.
 */
describe("rows of another namespace in the old form, opened at the magic-link callback", () => {
  const token = "0a".repeat(32)
  /** Each reserved namespace: a row's identifier, and the token the attacker writes into the link. */
  const namespaces = [
    { name: "password-verify", identifier: passwordTokenIdentifier("verify", "mallory@example.com"), forged: `portcullis-password-verify:${token}:` },
    { name: "password-reset", identifier: passwordTokenIdentifier("reset", "mallory@example.com"), forged: `portcullis-password-reset:${token}:` },
    { name: "webauthn-challenge", identifier: webauthnChallengeIdentifier("webauthn"), forged: token },
    { name: "two-factor-challenge", identifier: twoFactorChallengeIdentifier("user-mallory"), forged: token },
  ]

  it("the list covers every namespace the table has (each builder's identifier is reserved, an address is not)", () => {
    for (const { identifier } of namespaces) expect(isReservedIdentifier(identifier)).toBe(true)
    expect(isReservedIdentifier("mallory@example.com")).toBe(false)
  })

  /** Plants the row; returns a check that it is still there (the callback consumed nothing). */
  async function plant(adapter: ReturnType<typeof app>["adapter"], identifier: string, forged: string) {
    const row = { identifier, token: magicHash(forged), expires: new Date(Date.now() + 3_600_000) }
    await adapter.createVerificationToken!(row)
    return async () => expect(await adapter.useVerificationToken!({ identifier, token: row.token })).toMatchObject({ identifier })
  }

  it.each(namespaces)("a planted $name row, its identifier as the address, signs nobody in (GET, interstitial: false)", async ({ identifier, forged }) => {
    const { adapter, browser } = app()
    const stillThere = await plant(adapter, identifier, forged)
    const response = await browser().request(magicLink(forged, identifier))
    expect(sessionSet(response)).toBe(false)
    expect(redirectOf(response).error).toBe("Verification")
    expect(await adapter.getUserByEmail!(identifier)).toBeNull()
    await stillThere()
  })

  it.each(namespaces)("a planted $name row, posted to the confirm form's endpoint, signs nobody in (POST, interstitial on)", async ({ identifier, forged }) => {
    const { adapter, browser } = emailPasswordApp(smtp.url, { interstitial: true })
    const stillThere = await plant(adapter, identifier, forged)
    const mallory = browser()
    const response = await mallory.request("/auth/callback/email", { form: { csrfToken: await mallory.csrfToken(), token: forged, email: identifier } })
    expect(sessionSet(response)).toBe(false)
    expect(redirectOf(response).error).toBe("Verification")
    expect(await adapter.getUserByEmail!(identifier)).toBeNull()
    await stillThere()
  })

  it("premise: the planted old-form verification row is a working password link, and stays one after the attack", async () => {
    const { adapter, browser } = app()
    await adapter.createUser!({ id: crypto.randomUUID(), email: "mallory@example.com", emailVerified: null, name: null, image: null })
    const [verify] = namespaces
    await plant(adapter, verify!.identifier, verify!.forged)
    expect(sessionSet(await browser().request(magicLink(verify!.forged, verify!.identifier)))).toBe(false)
    const used = await confirmVerification(browser(), `/auth/password/verify?${new URLSearchParams({ token, email: "mallory@example.com" })}`)
    expect(used.error).toBeNull()
    expect(used.path).toBe("/auth/password/verified")
  })
})
