/**
 * Passwords and second factors on a runtime: `@portcullis/core/password` with the native
 * argon2 binding (docs/passwords.md says it loads on Node, Bun and Deno) and with the
 * WebAssembly build, hashes of one verified by the other, a bcrypt hash from elsewhere, and
 * a TOTP code from `@portcullis/core/two-factor`. Run by `runtimes/drivers/password.ts`.
 * @module
 */
import { hashPassword, needsRehash, verifyPassword } from "@portcullis/core/password"
import { totpCode, verifyTotp } from "@portcullis/core/two-factor"
import type { ScenarioResult } from "./scenarios.ts"

export const passwordScenarioNames = [
  "password: the native argon2 binding hashes and verifies",
  "password: the WebAssembly build verifies a native hash, and the other way round",
  "password: a bcrypt hash made elsewhere verifies",
  "two-factor: a TOTP code of now verifies once",
] as const

function check(condition: unknown, what: string): asserts condition {
  if (!condition) throw new Error(`expected ${what}`)
}

export async function runPasswordScenarios(): Promise<ScenarioResult[]> {
  const cost = { memoryCost: 4096, timeCost: 2, parallelism: 1 }
  const steps: (() => Promise<void>)[] = [
    async () => {
      const stored = await hashPassword("correct horse", { ...cost, implementation: "native" })
      check(stored.startsWith("$argon2id$v=19$m=4096,t=2,p=1$"), `an argon2id PHC string, got ${stored}`)
      check(await verifyPassword("correct horse", stored, { implementation: "native" }), "the right password to verify")
      check(!(await verifyPassword("correct horsE", stored, { implementation: "native" })), "a wrong password to fail")
      check(!needsRehash(stored, cost), "no rehash at the same cost")
    },
    async () => {
      const native = await hashPassword("pässwörd 🔑", { ...cost, implementation: "native" })
      const wasm = await hashPassword("pässwörd 🔑", { ...cost, implementation: "wasm" })
      check(await verifyPassword("pässwörd 🔑", native, { implementation: "wasm" }), "wasm to verify the native hash")
      check(await verifyPassword("pässwörd 🔑", wasm, { implementation: "native" }), "native to verify the wasm hash")
    },
    async () => {
      // The OpenBSD bcrypt test vector: "U*U" at cost 5.
      check(await verifyPassword("U*U", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"), "the bcrypt vector to verify")
    },
    async () => {
      const secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
      const now = Date.now()
      const first = verifyTotp({ secret, code: totpCode(secret, now), now })
      check(first.valid, "the code of now to verify")
      const again = verifyTotp({ secret, code: totpCode(secret, now), now, lastUsedStep: first.valid ? first.step : 0 })
      check(!again.valid && again.reason === "reused", "the same code to be refused the second time")
    },
  ]
  const results: ScenarioResult[] = []
  for (const [i, step] of steps.entries()) {
    const started = performance.now()
    try {
      await step()
      results.push({ name: passwordScenarioNames[i]!, ok: true, ms: performance.now() - started })
    } catch (error) {
      results.push({ name: passwordScenarioNames[i]!, ok: false, ms: performance.now() - started, error: String((error as Error)?.message ?? error) })
    }
  }
  return results
}
