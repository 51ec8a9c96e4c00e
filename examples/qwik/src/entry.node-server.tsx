import { createQwikCity } from "@builder.io/qwik-city/middleware/node"
import qwikCityPlan from "@qwik-city-plan"
import { manifest } from "@qwik-client-manifest"
import render from "./entry.ssr"

/** The Qwik City request handlers; server.js puts them behind Node's http module. */
export const { router, notFound, staticFile } = createQwikCity({ render, qwikCityPlan, manifest })
