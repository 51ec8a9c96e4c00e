// The slice of autocannon's programmatic API the bench uses (the package ships no types).
declare module "autocannon" {
  import type { EventEmitter } from "node:events"

  export interface Histogram {
    mean: number
    total: number
    p50: number
    p99: number
  }
  export interface Result {
    requests: Histogram
    latency: Histogram
    non2xx: number
    mismatches: number
    errors: number
    timeouts: number
  }
  export interface Options {
    url: string
    connections?: number
    duration?: number
    headers?: Record<string, string>
    verifyBody?: (body: string) => boolean
  }
  export interface Instance extends EventEmitter {
    on(event: "response", listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void): this
  }
  function autocannon(options: Options, callback: (error: Error | null, result: Result) => void): Instance
  export default autocannon
}
