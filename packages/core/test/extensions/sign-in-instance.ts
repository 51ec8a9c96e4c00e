/**
 * One app instance in its own Node process, for `sign-in-facet.test.ts`'s two-process test:
 * credentials plus the SSO probe extension on PostgreSQL (the tables the parent names),
 * behind a real HTTP server. Bundled from the sources by the test (esbuild), started with
 * `fork`; it reports its origin over IPC and serves until killed.
 */
import { SqlAdapter, type TableNames } from "@portcullis/sql-adapter"
import { createPostgresKysely } from "@portcullis/sql-adapter/node"
import { credentialsConfig } from "../helpers.js"
import { httpServer } from "../http-server.js"
import { ssoExtension } from "./sso-probe.js"

const options = JSON.parse(process.argv[2] ?? "{}") as { url: string; tables: TableNames }
const adapter = SqlAdapter(createPostgresKysely(options.url), { tables: options.tables })
const config = credentialsConfig({ adapter, extensions: [ssoExtension()], logger: { error() {}, warn() {}, debug() {} } })
const server = await httpServer(config)
process.send!({ ready: true, origin: server.origin })
