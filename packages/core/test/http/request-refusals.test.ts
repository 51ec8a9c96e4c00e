import { describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import { credentialsConfig, direct } from "../helpers.js"

/**
 * A request refused before any action runs is answered with the error's type and a
 * message that tells the client (or the developer of an integration) what to fix. The
 * statuses are held by `../bad-input.test.ts`; these hold what each refusal says.
 */
const config = credentialsConfig()
const send = direct(config)
const LIMIT = 1024 * 1024
const ACTIONS = "providers, session, csrf, signin, signout, callback, verify-request, error, webauthn-options, two-factor, reauthenticate, password, health"

async function refusal(response: Response): Promise<{ status: number; error: string; message: string }> {
  const { error, message } = (await response.json()) as { error: string; message: string }
  return { status: response.status, error, message }
}

/** A body streamed in chunks, with no Content-Length for the server to check first. */
function streamOf(chunks: number, size: number): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (let i = 0; i < chunks; i++) controller.enqueue(new TextEncoder().encode("x".repeat(size)))
      controller.close()
    },
  })
}

describe("a request whose URL is no absolute URL", () => {
  it("is a 400 saying so (an adapter that handed over the path alone, as a Node req.url is)", async () => {
    const pathOnly = { url: "/auth/session", method: "GET", headers: new Headers() } as unknown as Request
    expect(await refusal(await Auth(pathOnly, config))).toEqual({ status: 400, error: "InvalidRequest", message: "The request URL is not valid" })
  })
})

describe("an unknown action", () => {
  it("lists every action and the base path they are served under", async () => {
    const { status, error, message } = await refusal(await send(new Request("http://localhost:3000/auth/nope")))
    expect({ status, error }).toEqual({ status: 400, error: "UnknownAction" })
    expect(message).toMatch(new RegExp(`^Unknown action\\. Portcullis serves ${ACTIONS} under /auth\\b`))
  })

  it("with the actions at the root (basePath \"\"), says they are under /", async () => {
    const root = direct({ ...config, basePath: "" } as AuthConfig)
    const { message } = await refusal(await root(new Request("http://localhost:3000/nope")))
    expect(message).toMatch(new RegExp(`^Unknown action\\. Portcullis serves ${ACTIONS} under /\\.`))
  })
})

describe("a provider segment that is not valid percent-encoding", () => {
  it("is a 400 InvalidRequest saying so, not read as a missing provider", async () => {
    expect(await refusal(await send(new Request("http://localhost:3000/auth/callback/%E0%A4%A")))).toEqual({
      status: 400,
      error: "InvalidRequest",
      message: "The provider segment is not valid percent-encoding",
    })
  })
})

describe("a body over the 1 MiB limit", () => {
  const tooLarge = { status: 413, error: "RequestTooLarge", message: `The request body is over ${LIMIT} bytes` }

  it("declared by its Content-Length: a 413 naming the limit", async () => {
    const response = await send(
      new Request("http://localhost:3000/auth/session", { method: "POST", body: "{}", headers: { "content-type": "application/json", "content-length": String(LIMIT + 1) } }),
    )
    expect(await refusal(response)).toEqual(tooLarge)
  })

  it("streamed without a Content-Length: the same 413 once the limit is passed", async () => {
    const body = streamOf(11, 100_000)
    const response = await send(new Request("http://localhost:3000/auth/session", { method: "POST", body, headers: { "content-type": "application/json" }, duplex: "half" } as RequestInit))
    expect(await refusal(response)).toEqual(tooLarge)
  })
})

describe("a JSON body that cannot be used", () => {
  const post = (body: string) => send(new Request("http://localhost:3000/auth/session", { method: "POST", body, headers: { "content-type": "application/json" } }))

  it("that does not parse is a 400 saying so (not read as an empty or non-object body)", async () => {
    expect(await refusal(await post('{"csrfToken": '))).toEqual({ status: 400, error: "InvalidRequest", message: "The JSON body does not parse" })
  })

  it("that nests deeper than 32 levels is a 400 naming the limit", async () => {
    const deep = "[".repeat(40) + "]".repeat(40)
    expect(await refusal(await post(`{"data": ${deep}}`))).toEqual({ status: 400, error: "InvalidRequest", message: "The JSON body nests deeper than 32 levels" })
  })
})
