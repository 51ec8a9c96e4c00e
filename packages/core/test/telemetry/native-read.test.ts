/**
 * Server-side session reads (`readSession`, which Express's `getSession(req)` and Next.js's
 * `auth()` call) skip the Web `Request` only without an OpenTelemetry SDK: with one, every
 * read is still a `portcullis session` span and counted by result, as before.
 */
import { afterEach, describe, expect, it } from "vitest"
import { createAuth } from "@portcullis/core"
import { readSession } from "@portcullis/core/integration"
import { encode } from "@portcullis/core/jwt"
import { credentialsConfig, SECRET } from "../helpers.js"
import { registerSdk, type RegisteredSdk } from "./support.js"

const quiet = { error: () => {}, warn: () => {}, debug: () => {} }
let sdk: RegisteredSdk | undefined

afterEach(async () => {
  await sdk?.unregister()
  sdk = undefined
})

describe("server-side session reads with an SDK registered", () => {
  it("are spans and counted session checks, every one of them", async () => {
    sdk = registerSdk()
    const runtime = createAuth(credentialsConfig({ logger: quiet }))
    const token = await encode({ token: { name: "Ada", email: "ada@example.com", sub: "user-ada" }, secret: SECRET, salt: "authjs.session-token" })
    await readSession("http://localhost:3000", undefined, runtime)
    for (let i = 0; i < 4; i++) expect((await readSession("http://localhost:3000", `authjs.session-token=${token}`, runtime))?.user?.email).toBe("ada@example.com")
    expect(await sdk.count("portcullis.session_check", { result: "none" })).toBe(1)
    expect(await sdk.count("portcullis.session_check", { result: "valid" })).toBe(4)
    expect(sdk.named("portcullis session").length).toBe(5)
  })
})
