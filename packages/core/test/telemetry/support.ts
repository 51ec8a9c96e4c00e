/**
 * An OpenTelemetry SDK registered for one test, as an app registers one (global providers,
 * an AsyncLocalStorage context manager): spans kept in memory, metrics read on demand.
 */
import { context, metrics, trace, type AttributeValue } from "@opentelemetry/api"
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base"
import { MeterProvider, MetricReader, type DataPoint, type Histogram } from "@opentelemetry/sdk-metrics"

/** A reader that exports nothing on its own: the test collects when it asserts. */
class TestReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface RegisteredSdk {
  spans(): ReadableSpan[]
  /** The spans named `name`. */
  named(name: string): ReadableSpan[]
  /** The direct children of `parent`. */
  childrenOf(parent: ReadableSpan): ReadableSpan[]
  /** The points of metric `name`, each with its attributes and value (a sum, or a histogram's count). */
  points(name: string): Promise<{ attributes: Record<string, AttributeValue | undefined>; value: number }[]>
  /** The sum of metric `name`'s points whose attributes include `attributes`. */
  count(name: string, attributes?: Record<string, string>): Promise<number>
  unregister(): Promise<void>
}

/** Registers the SDK globally; `unregister()` (in `afterEach`) puts the API back to no-op. */
export function registerSdk(): RegisteredSdk {
  const exporter = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const reader = new TestReader()
  const meterProvider = new MeterProvider({ readers: [reader] })
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  trace.setGlobalTracerProvider(tracerProvider)
  metrics.setGlobalMeterProvider(meterProvider)
  const sdk: RegisteredSdk = {
    spans: () => exporter.getFinishedSpans(),
    named: (name) => exporter.getFinishedSpans().filter((s) => s.name === name),
    childrenOf: (parent) => exporter.getFinishedSpans().filter((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId),
    async points(name) {
      const { resourceMetrics } = await reader.collect()
      const found = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name)
      return (found?.dataPoints ?? []).map((p: DataPoint<unknown>) => ({
        attributes: { ...p.attributes },
        value: typeof p.value === "number" ? p.value : (p.value as Histogram).count,
      }))
    },
    async count(name, attributes = {}) {
      const points = await sdk.points(name)
      return points.filter((p) => Object.entries(attributes).every(([k, v]) => p.attributes[k] === v)).reduce((sum, p) => sum + p.value, 0)
    },
    async unregister() {
      await tracerProvider.shutdown()
      await meterProvider.shutdown()
      trace.disable()
      metrics.disable()
      context.disable()
    },
  }
  return sdk
}

/** Every attribute value of every span, as strings: what a test scans for personal data. */
export function everyAttribute(spans: ReadableSpan[]): string[] {
  return spans.flatMap((s) => [s.name, ...Object.values(s.attributes).map(String)])
}
