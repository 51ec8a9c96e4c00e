// @ts-check
/**
 * Mutation testing of the security-critical modules (issue 36). Run it with
 * `npm run mutation [group ...]` (scripts/mutation.ts), which runs Stryker once per group of
 * `mutation/groups/*.json` — the modules a group mutates and the tests that cover them — with
 * this file as the shared base, keeps each group's incremental result in
 * `mutation/incremental/<group>.json` (only mutants whose code or covering tests changed run
 * again) and fails when any module scores below 90 %.
 *
 * Each mutant (a condition flipped, a check deleted, a string emptied) must make some test
 * fail; a survivor is a protection no test holds. The TypeScript checker drops mutants that
 * do not compile before any test runs. Scores per module, and the equivalent mutants with
 * why, are in docs/testing.md. `mutate` below is the whole set, for a plain `stryker run`.
 */
const core = (path) => `packages/core/src/lib/${path}`

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  packageManager: "npm",
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts", related: false },
  checkers: ["typescript"],
  tsconfigFile: "packages/core/tsconfig.json",
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: "perTest",
  incremental: true,
  incrementalFile: "reports/mutation/stryker-incremental.json",
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  // The machine is shared: one test process, one checker.
  concurrency: 1,
  timeoutMS: 30_000,
  // The initial run of a group's tests (with per-test coverage) took over Stryker's default
  // 5 minutes on the shared cores (load 15–20) for the passwords group; a timed-out dry run
  // ends the whole run before any mutant is tested.
  dryRunTimeoutMinutes: 20,
  // The issue's bar: at least 90 % on every listed module; below it the run fails.
  thresholds: { high: 95, low: 90, break: 90 },
  ignorePatterns: [".tools", "reports", "bench", "chaos", "runtimes", "examples/*/data", "**/dist", "**/.next", "**/.svelte-kit"],
  // The security-critical modules (issue 36). Extensions' authorization checks join as they land.
  mutate: [
    // CSRF, origin trust and host parsing, request parsing
    core("csrf.ts"),
    core("origin-trust.ts"),
    core("config/trusted-origins.ts"),
    core("http/host.ts"),
    core("http/request.ts"),
    core("http/media-type.ts"),
    core("http/body.ts"),
    core("http/node-body.ts"),
    // cookies and the JWE paths
    core("cookies.ts"),
    core("jwt/*.ts"),
    `!${core("jwt/types.ts")}`,
    // the session lane and revocation
    core("session/answers.ts"),
    core("session/registry.ts"),
    core("session/manage.ts"),
    core("session/jwt.ts"),
    core("http/session-check.ts"),
    // every verification-token namespace
    core("verification-identifiers.ts"),
    core("email/token.ts"),
    core("kinds/email.ts"),
    core("password-flows/tokens.ts"),
    core("webauthn/challenge.ts"),
    core("two-factor/ledger.ts"),
    // password flows, two-factor, passkey challenges
    core("password-flows/*.ts"),
    core("two-factor/*.ts"),
    `!${core("two-factor/qr.ts")}`,
    `!${core("**/*.d.ts")}`,
    // the rate limiter's identifiers and addresses
    core("rate-limit/limiter.ts"),
    core("rate-limit/address.ts"),
  ],
}
