// Runs the shared scenarios in workerd, as a module Worker: POST the ScenarioEnv as JSON,
// get back { runtime, version, results }. Bundled by `runtimes/bundle.ts` the way an app's
// Worker is bundled, and run through miniflare by `runtimes/test/workerd.test.ts`.
import { runScenarios } from "../scenarios.ts"

export default {
  async fetch(request: Request): Promise<Response> {
    const results = await runScenarios(await request.json())
    return Response.json({ runtime: "workerd", version: navigator.userAgent, results })
  },
}
