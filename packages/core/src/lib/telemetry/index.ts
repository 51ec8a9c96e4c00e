/**
 * OpenTelemetry traces and metrics (docs/observability.md, "Traces and metrics"), through
 * `@opentelemetry/api`'s global providers: the convention for libraries, so an app that
 * registers an SDK sees Portcullis's spans and metrics with no Portcullis option, and an
 * app that registers none pays nothing.
 *
 * One {@link Telemetry} per configuration (`ResolvedConfig.telemetry`). It asks the API once,
 * when the configuration is resolved, whether a real tracer or meter provider is registered;
 * when neither is (or `telemetry: false`), `active` is false and every call site skips its
 * telemetry behind that one boolean: no span object, no attribute object, no clock read.
 * An SDK is therefore registered before the configuration is first used — as OpenTelemetry
 * asks of every instrumented library (`node --import ./otel.js server.js`).
 *
 * No personal data: spans and metrics carry provider ids, actions, adapter method names,
 * error types and hosts — never an email address, user id, token, code or query string.
 * @module
 */
import {
  createNoopMeter,
  metrics,
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Counter,
  type Histogram,
  type Meter,
  type Span,
  type Tracer,
} from "@opentelemetry/api"

/** The instrumentation scope: what a collector shows as the spans' and metrics' origin. */
export const INSTRUMENTATION_SCOPE = "@portcullis/core"

/** What a session check answered: a session, none, or an error (an outage, a refused request). */
export type SessionCheckResult = "valid" | "none" | "error"

/** What the sign-in counters are fed: the audit event's type, method and outcome (`lib/audit/`). */
export interface AuditedOutcome {
  type: string
  method?: string | undefined
  details?: Readonly<Record<string, string | number | boolean | null>> | undefined
}

// The API's own no-op objects, to tell a registered provider from none. The proxy's
// delegate is the API's shared no-op provider until an SDK registers one.
const noopTracerProvider = new ProxyTracerProvider().getDelegate()
const NoopMeter = createNoopMeter().constructor

/** The counters and histogram of one configuration, created once. */
class Instruments {
  readonly signIn: Counter
  readonly lockout: Counter
  readonly twoFactor: Counter
  readonly sessionCheck: Counter
  readonly storeErrors: Counter
  readonly actionDuration: Histogram

  constructor(meter: Meter) {
    this.signIn = meter.createCounter("portcullis.sign_in", { description: "Sign-in attempts by method and outcome", unit: "{attempt}" })
    this.lockout = meter.createCounter("portcullis.lockout", { description: "Credentials lockouts", unit: "{lockout}" })
    this.twoFactor = meter.createCounter("portcullis.two_factor", { description: "Second-factor code checks by outcome", unit: "{check}" })
    this.sessionCheck = meter.createCounter("portcullis.session_check", { description: "Session checks (GET <basePath>/session) by result", unit: "{check}" })
    this.storeErrors = meter.createCounter("portcullis.store.errors", { description: "Failed or late store calls by store", unit: "{error}" })
    this.actionDuration = meter.createHistogram("portcullis.action.duration", { description: "Time to answer a request, by action", unit: "s" })
  }
}

/** The telemetry of one configuration: a tracer and instruments, or nothing at all. */
export class Telemetry {
  /** Whether spans are made: a tracer provider was registered when the configuration was resolved. */
  readonly tracing: boolean
  /** Whether metrics are recorded: a meter provider was registered then. */
  readonly metering: boolean
  /** `tracing || metering`: the one check a hot path makes. */
  readonly active: boolean
  readonly #tracer: Tracer | undefined
  readonly #instruments: Instruments | undefined

  /** With `enabled` false (`telemetry: false`) nothing is asked of the API and nothing recorded. */
  constructor(enabled: boolean) {
    const tracerProvider = enabled ? trace.getTracerProvider() : undefined
    const delegate = tracerProvider instanceof ProxyTracerProvider ? tracerProvider.getDelegate() : tracerProvider
    this.#tracer = delegate && delegate !== noopTracerProvider ? trace.getTracer(INSTRUMENTATION_SCOPE) : undefined
    const meter = enabled ? metrics.getMeter(INSTRUMENTATION_SCOPE) : undefined
    this.#instruments = meter && !(meter instanceof NoopMeter) ? new Instruments(meter) : undefined
    this.tracing = this.#tracer !== undefined
    this.metering = this.#instruments !== undefined
    this.active = this.tracing || this.metering
  }

  /**
   * Runs `act` in a span that is the active one while it runs (so adapter and outbound
   * spans under it are its children), ended when `act` settles. A throw marks the span as
   * an error with the error's type; `act` sets anything else it learns on `span`.
   * Without a tracer, `act` runs as is, with `undefined` for the span.
   */
  span<T>(name: string, kind: SpanKind, attributes: Attributes, act: (span: Span | undefined) => Promise<T>): Promise<T> {
    const tracer = this.#tracer
    if (!tracer) return act(undefined)
    return tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
      try {
        return await act(span)
      } catch (error) {
        failed(span, error)
        throw error
      } finally {
        span.end()
      }
    })
  }

  /**
   * `base` with a client span around each request (`portcullis.outbound` says what for:
   * `oauth`, `email`, `breached`). The span names the method and host only: query strings
   * and paths of these requests carry codes, and a password-hash prefix for `breached`.
   */
  outbound(base: typeof fetch, purpose: string): typeof fetch {
    if (!this.#tracer) return base
    return (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input))
      const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase()
      const attributes: Attributes = {
        "http.request.method": method,
        "server.address": url.hostname,
        "url.scheme": url.protocol.slice(0, -1),
        "portcullis.outbound": purpose,
      }
      if (url.port) attributes["server.port"] = Number(url.port)
      return this.span(method, SpanKind.CLIENT, attributes, async (span) => {
        const response = await base(input, init)
        span?.setAttribute("http.response.status_code", response.status)
        if (response.status >= 400) span?.setStatus({ code: SpanStatusCode.ERROR })
        return response
      })
    }
  }

  /** Counts the sign-in, lockout and second-factor outcomes an audit event reports. */
  audited(event: AuditedOutcome): void {
    const instruments = this.#instruments
    if (!instruments) return
    switch (event.type) {
      case "signIn":
        instruments.signIn.add(1, { method: event.method ?? "unknown", outcome: "success" })
        if (event.details?.secondFactor) instruments.twoFactor.add(1, { outcome: "success", factor: String(event.details.secondFactor) })
        return
      case "signInFailed":
        if (event.method === "twoFactor") instruments.twoFactor.add(1, { outcome: "failure" })
        else instruments.signIn.add(1, { method: event.method ?? "unknown", outcome: "failure" })
        return
      case "lockout":
        instruments.lockout.add(1)
        return
    }
  }

  /** Counts one session check's result. */
  sessionCheck(result: SessionCheckResult): void {
    this.#instruments?.sessionCheck.add(1, { result })
  }

  /** Counts one failed (or late) call to `store`. */
  storeError(store: string): void {
    this.#instruments?.storeErrors.add(1, { store })
  }

  /** Records how long an action took, in seconds. */
  actionDuration(action: string, seconds: number): void {
    this.#instruments?.actionDuration.record(seconds, { "portcullis.action": action })
  }
}

/** Marks `span` failed by `error`: its type (an `AuthError`'s stable `type`, else its name), never its message. */
export function failed(span: Span, error: unknown): void {
  span.setAttribute("error.type", errorType(error))
  span.setStatus({ code: SpanStatusCode.ERROR })
}

/** An error's stable name for telemetry: an `AuthError`'s `type`, else the class name. */
export function errorType(error: unknown): string {
  if (error && typeof error === "object") {
    const type = (error as { type?: unknown }).type
    if (typeof type === "string") return type
    const name = (error as { name?: unknown }).name
    if (typeof name === "string" && name) return name
  }
  return "_OTHER"
}

export { SpanKind, SpanStatusCode, trace }
export type { Attributes, Span } from "@opentelemetry/api"
