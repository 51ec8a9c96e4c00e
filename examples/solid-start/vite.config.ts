import { defineConfig } from "vite"
import { solidStart } from "@solidjs/start/config"

// No deployment plugin: server.js serves the SSR build with Node's http module (see README in docs/solid-start.md).
export default defineConfig({ plugins: [solidStart()] })
