import { dirname } from "node:path"
import { fileURLToPath } from "node:url"

/** @type {import("next").NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  // The monorepo root: node_modules/@portcullis/* are links to the built packages there.
  turbopack: { root: dirname(dirname(dirname(fileURLToPath(import.meta.url)))) },
}

export default nextConfig
