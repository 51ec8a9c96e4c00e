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
  export interface RequestParams {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string
  }
  export interface Request extends RequestParams {
    /** Called before each send; returns the request to send (autocannon ≥ 4). */
    setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams
    /** Called with each response (headers as name → value; repeated headers as arrays). */
    onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string | string[]>) => void
  }
  export interface Options {
    url: string
    connections?: number
    duration?: number
    method?: string
    headers?: Record<string, string>
    body?: string
    requests?: Request[]
    verifyBody?: (body: string) => boolean
  }
  export interface Instance extends EventEmitter {
    on(event: "response", listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void): this
  }
  function autocannon(options: Options, callback: (error: Error | null, result: Result) => void): Instance
  export default autocannon
}
