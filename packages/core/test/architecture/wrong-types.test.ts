/**
 * Issue 14: any wrong-typed option becomes the promised configuration-error response —
 * every request answers it and the log names the option — never a raw `TypeError` from
 * `Auth()`. One row per option, each given a value of the wrong type.
 */
import { describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import { customFetch } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { SECRET } from "../helpers.js"

const valid = (): Record<PropertyKey, unknown> => ({
  secret: SECRET,
  trustHost: true,
  providers: [Credentials({ authorize: async () => null })],
})

/** [option path, wrong value, text the error must contain]. */
const rows: [path: string, value: unknown, names: string][] = [
  ["providers", "github", "providers"],
  ["providers", undefined, "providers"],
  ["basePath", 42, "basePath"],
  ["basePath", ["/auth"], "basePath"],
  ["secret", 12345, "secret"],
  ["secret", ["ok-secret-with-32-characters-ok!", 7], "secret"],
  ["adapter", "postgres://", "adapter"],
  ["adapterTimeout", "5s", "adapterTimeout"],
  ["telemetry", "off", "telemetry"],
  ["telemetry", { enabled: false }, "telemetry"],
  ["session", "jwt", "session"],
  ["session.strategy", 1, "session.strategy"],
  ["session.maxAge", "30d", "session.maxAge"],
  ["session.updateAge", null, "session.updateAge"],
  ["session.generateSessionToken", "token", "session.generateSessionToken"],
  ["session.hashTokens", "yes", "session.hashTokens"],
  ["jwt", true, "jwt"],
  ["jwt.maxAge", "1h", "jwt.maxAge"],
  ["jwt.encode", {}, "jwt.encode"],
  ["jwt.decode", "decode", "jwt.decode"],
  ["callbacks", () => true, "callbacks"],
  ["callbacks.signIn", true, "callbacks.signIn"],
  ["callbacks.redirect", "/", "callbacks.redirect"],
  ["events", [], "events"],
  ["events.signIn", "log", "events.signIn"],
  ["cookies", "strict", "cookies"],
  ["cookies.sessionToken", "name", "cookies.sessionToken"],
  ["pages", "/login", "pages"],
  ["pages.signIn", 1, "pages.signIn"],
  ["theme", "dark", "theme"],
  ["theme.colorScheme", 0, "theme.colorScheme"],
  ["logger", console.log, "logger"],
  ["logger.error", "stderr", "logger.error"],
  ["debug", "true", "debug"],
  ["trustHost", "true", "trustHost"],
  ["trustedOrigins", "https://a.example", "trustedOrigins"],
  ["useSecureCookies", 1, "useSecureCookies"],
  ["redirectProxyUrl", new URL("https://proxy.example"), "redirectProxyUrl"],
  ["experimental", true, "experimental"],
  ["experimental.enableWebAuthn", "on", "experimental.enableWebAuthn"],
  ["raw", true, "raw"],
  ["raw", Symbol("raw"), "raw"],
  ["skipCSRFCheck", "yes", "skipCSRFCheck"],
]

function withValue(path: string, value: unknown): Record<PropertyKey, unknown> {
  const config = valid()
  const keys = path.split(".")
  let target = config
  for (const key of keys.slice(0, -1)) target = (target[key] ??= {}) as Record<PropertyKey, unknown>
  target[keys.at(-1)!] = value
  return config
}

function capture() {
  const errors: Error[] = []
  return { errors, logger: { error: (e: Error) => errors.push(e), warn: () => {}, debug: () => {} } }
}

describe("every option given a wrong type answers the configuration error", () => {
  it.each(rows)("%s = %o", async (path, value, names) => {
    const config = withValue(path, value)
    const { errors, logger } = capture()
    // The logger is only replaced where the row is not about the logger itself.
    if (!path.startsWith("logger")) config.logger = logger
    const api = await Auth(new Request("http://localhost:3000/auth/session"), config as unknown as AuthConfig)
    expect(api.status).toBe(500)
    expect(await api.json()).toEqual({ message: expect.stringMatching(/problem with the server configuration/) })
    const page = await Auth(new Request("http://localhost:3000/auth/signin"), config as unknown as AuthConfig)
    expect(page.status).toBe(500)
    expect(page.headers.get("content-type")).toMatch(/text\/html/)
    if (!path.startsWith("logger")) {
      expect(errors[0]?.message).toContain(names)
      expect(errors.some((e) => e instanceof TypeError)).toBe(false)
    }
  })

  it("a configuration that is not an object answers the configuration error too", async () => {
    for (const config of [null, "config", 42, []]) {
      const response = await Auth(new Request("http://localhost:3000/auth/session"), config as unknown as AuthConfig)
      expect(response.status).toBe(500)
    }
  })

  it("a provider factory that throws is a configuration error, not a rejection", async () => {
    const { errors, logger } = capture()
    const config = { ...valid(), logger, providers: [() => { throw new TypeError("boom") }] }
    const response = await Auth(new Request("http://localhost:3000/auth/providers"), config as unknown as AuthConfig)
    expect(response.status).toBe(500)
    expect(errors[0]?.message).toMatch(/provider/i)
  })

  it("a [customFetch] that is not a function is named", async () => {
    const { errors, logger } = capture()
    const config = { ...valid(), logger, [customFetch]: "fetch" }
    expect((await Auth(new Request("http://localhost:3000/auth/session"), config as unknown as AuthConfig)).status).toBe(500)
    expect(errors[0]?.message).toContain("customFetch")
  })

  it("the well-typed configuration these rows start from works", async () => {
    const response = await Auth(new Request("http://localhost:3000/auth/session"), valid() as unknown as AuthConfig)
    expect(response.status).toBe(200)
  })
})
