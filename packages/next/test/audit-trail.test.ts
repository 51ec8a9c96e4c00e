/**
 * Issue 29, the stored audit trail on Next.js: `auditTrail()` and `pruneAuditTrail()` on
 * `NextAuth()`'s result read and prune the trail of the app's runtime, which its route
 * handlers wrote.
 */
import { describe, expect, it } from "vitest"
import { NextRequest } from "next/server"
import NextAuth from "@portcullis/next"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { InvalidAuditQuery } from "@portcullis/core/errors"
import { ada, credentialsConfig } from "../../core/test/helpers.js"

describe("auditTrail of NextAuth's result", () => {
  it("lists what the route handlers recorded, and refuses a forged cursor", async () => {
    const { handlers, auditTrail, pruneAuditTrail } = NextAuth(credentialsConfig({ basePath: "/api/auth", adapter: MemoryAdapter(), session: { strategy: "jwt" }, rateLimit: false, logger: { error() {}, warn() {}, debug() {} } }))
    const csrf = await handlers.GET(new NextRequest("http://localhost:3000/api/auth/csrf"))
    const { csrfToken } = (await csrf.json()) as { csrfToken: string }
    const cookie = csrf.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ")
    const body = new URLSearchParams({ csrfToken, username: ada.username, password: "not the password" })
    await handlers.POST(new NextRequest("http://localhost:3000/api/auth/callback/credentials", { method: "POST", headers: { cookie, "content-type": "application/x-www-form-urlencoded" }, body }))
    const page = await auditTrail({ type: "signInFailed" })
    expect(page.records).toEqual([expect.objectContaining({ type: "signInFailed", outcome: "failure", reason: "CredentialsSignin", method: "credentials" })])
    await expect(auditTrail({ cursor: "forged" })).rejects.toBeInstanceOf(InvalidAuditQuery)
    expect(await pruneAuditTrail()).toEqual({ deleted: 0 })
  })
})
