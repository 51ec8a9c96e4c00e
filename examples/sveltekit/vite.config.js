import adapter from "@sveltejs/adapter-node"
import { sveltekit } from "@sveltejs/kit/vite"
import { defineConfig } from "vite"

/**
 * SvelteKit 3 takes its configuration in the Vite plugin (svelte.config.js is gone).
 * SvelteKit's default CSRF protection (form posts must come from this origin) stays on:
 * the sign-in and sign-out form actions rely on it. Do not add origins to
 * `csrf.trustedOrigins` unless they may sign users in.
 */
export default defineConfig({
  plugins: [sveltekit({ adapter: adapter({ out: "build" }) })],
  // In this monorepo @portcullis/sveltekit is a symlinked workspace with its own copy of
  // SvelteKit for its tests; one copy must serve the app, or a `redirect()` thrown by the
  // package is not recognised as one. An app installing the package from npm has one copy.
  resolve: { dedupe: ["@sveltejs/kit"] },
})
