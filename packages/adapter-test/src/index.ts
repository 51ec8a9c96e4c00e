/**
 * `@portcullis/adapter-test`: the conformance suite every Portcullis adapter runs, and
 * helpers for suites that need a database server.
 *
 * @example
 * ```ts
 * import { runAdapterConformance } from "@portcullis/adapter-test"
 * import { MyAdapter } from "../src/index.js"
 *
 * runAdapterConformance("MyAdapter", {
 *   setup: () => db.connect(),
 *   adapter: () => MyAdapter(db),
 *   teardown: () => db.close(),
 * })
 * ```
 * @module
 */
export { runAdapterConformance } from "./conformance.js"
export { runSessionRegistryConformance } from "./session-registry.js"
export type { RegistryFactory } from "./session-registry.js"
export { recoveryMs, startFaultLoad, timeUntilSuccess } from "./fault-load.js"
export type { CallRecord, FaultLoad } from "./fault-load.js"
export type { ConformanceFactory, RawStorage } from "./conformance.js"
export {
  serviceAvailable,
  postgresService,
  pgbouncerService,
  pgbouncerAvailable,
  mysqlService,
  redisService,
  redisAvailable,
  redisClusterService,
  redisClusterAvailable,
  clusterNodes,
  postgresAvailable,
  mysqlAvailable,
  sqlServices,
  describeAddress,
  isCI,
} from "./services.js"
export type { BackingService, ServiceGate } from "./services.js"
export { pingRedis } from "./redis-ping.js"
export { askAll, describeSharedStores, nextLine, startWorkers } from "./worker-lines.js"
export type { LineWorker, SharedStoreOptions } from "./worker-lines.js"
export {
  daysFromNow,
  makeAccount,
  makeAuthenticator,
  makeSession,
  makeUser,
  makeVerificationToken,
} from "./fixtures.js"
