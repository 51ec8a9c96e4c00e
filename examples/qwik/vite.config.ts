import { defineConfig } from "vite"
import { qwikVite } from "@builder.io/qwik/optimizer"
import { qwikCity } from "@builder.io/qwik-city/vite"

export default defineConfig({
  plugins: [qwikCity(), qwikVite()],
  resolve: {
    // Qwik must be one copy: @portcullis/qwik and Qwik City resolve it from this app.
    dedupe: ["@builder.io/qwik", "@builder.io/qwik-city"],
  },
  // Bundled (not loaded by Node) so it shares the app's Qwik City instance.
  ssr: { noExternal: ["@portcullis/qwik"] },
})
