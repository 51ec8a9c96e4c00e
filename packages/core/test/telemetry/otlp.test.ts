/**
 * Issue 29, OpenTelemetry over the wire: an app that registers the SDK with the OTLP/HTTP
 * exporter — what it would point at a collector — delivers Portcullis's spans to a local
 * receiver, under the `@portcullis/core` scope, with the action span and its adapter calls
 * in one trace.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { context, trace } from "@opentelemetry/api"
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { createAuth } from "@portcullis/core"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, credentialsConfig } from "../helpers.js"

/** One span as OTLP/JSON spells it. */
interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[]
}

/** An OTLP/HTTP receiver: keeps every span posted to `/v1/traces`, by scope name. */
async function receiver() {
  const spans: { scope: string; span: OtlpSpan }[] = []
  const contentTypes: string[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/v1/traces") {
        contentTypes.push(String(req.headers["content-type"]))
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { resourceSpans: { scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[] }[] }
        for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) for (const span of scope.spans) spans.push({ scope: scope.scope.name, span })
      }
      res.writeHead(200, { "content-type": "application/json" })
      res.end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`
  return { url, spans, contentTypes, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

describe("traces exported over OTLP/HTTP to a local receiver", () => {
  let otlp: Awaited<ReturnType<typeof receiver>>
  let provider: BasicTracerProvider
  beforeAll(async () => {
    otlp = await receiver()
    provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: otlp.url }))] })
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
    trace.setGlobalTracerProvider(provider)
  })
  afterAll(async () => {
    await provider.shutdown()
    trace.disable()
    context.disable()
    await otlp.close()
  })

  it("arrive for a sign-in and a session check: the action spans, and the adapter calls as children in the same trace", async () => {
    const adapter = MemoryAdapter()
    await adapter.createUser!({ id: "user-ada", name: "Ada Lovelace", email: "ada@example.com", emailVerified: null })
    const auth = createAuth(credentialsConfig({ adapter, session: { strategy: "database" }, logger: { error: () => {}, warn: () => {}, debug: () => {} } }))
    const browser = new Browser((request) => auth.handle(request))
    expect((await browser.signIn()).status).toBe(302)
    expect((await browser.session())?.user?.name).toBe("Ada Lovelace")
    await provider.forceFlush()

    expect(otlp.contentTypes[0]).toMatch(/^application\/json/)
    const ours = otlp.spans.filter((s) => s.scope === "@portcullis/core").map((s) => s.span)
    const names = ours.map((s) => s.name)
    expect(names).toEqual(expect.arrayContaining(["portcullis csrf", "portcullis callback", "portcullis session", "portcullis.adapter createSession", "portcullis.adapter getSessionAndUser"]))
    const callback = ours.find((s) => s.name === "portcullis callback")!
    const created = ours.find((s) => s.name === "portcullis.adapter createSession")!
    expect(created.traceId).toBe(callback.traceId)
    expect(created.parentSpanId).toBe(callback.spanId)
    const attribute = (span: OtlpSpan, key: string) => span.attributes.find((a) => a.key === key)?.value
    expect(attribute(callback, "portcullis.provider")).toEqual({ stringValue: "credentials" })
    expect(attribute(callback, "url.path")).toEqual({ stringValue: "/auth/callback/credentials" })
    const session = ours.find((s) => s.name === "portcullis session")!
    expect(ours.find((s) => s.name === "portcullis.adapter getSessionAndUser")!.parentSpanId).toBe(session.spanId)
  })
})
