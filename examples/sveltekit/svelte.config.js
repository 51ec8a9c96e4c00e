import adapter from "@sveltejs/adapter-node"

/**
 * SvelteKit's default CSRF protection (form posts must come from this origin) stays on:
 * the sign-in and sign-out form actions rely on it. Do not add origins to
 * `kit.csrf.trustedOrigins` unless they may sign users in.
 * @type {import("@sveltejs/kit").Config}
 */
export default {
  kit: { adapter: adapter({ out: "build" }) },
}
