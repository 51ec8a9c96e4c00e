// Runs the shared scenarios in Vercel's edge runtime (`edge-runtime`), as an edge function
// listening for fetch events: POST the ScenarioEnv as JSON, get back { runtime, version,
// results }. Bundled as a script by `runtimes/bundle.ts`, evaluated by `runtimes/test/edge-runtime.test.ts`.
import { runScenarios } from "../scenarios.ts"

interface FetchEvent {
  request: Request
  respondWith(response: Promise<Response>): void
}
declare const EdgeRuntime: string
declare function addEventListener(type: "fetch", listener: (event: FetchEvent) => void): void

addEventListener("fetch", (event) => {
  event.respondWith(
    (async () => {
      const results = await runScenarios(await event.request.json())
      return Response.json({ runtime: "edge-runtime", version: EdgeRuntime, results })
    })(),
  )
})
