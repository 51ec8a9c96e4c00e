/**
 * A STAND-IN FOR THE HOSTED XATA SERVICE, for tests only. Xata's servers cannot be reached
 * from CI, so this is a small node:http server, written from Xata's public REST API
 * documentation (and the requests `@xata.io/client` 0.30 sends), that stores records in
 * PostgreSQL. It implements only what the adapter's client calls need:
 *
 * - `GET    /db/{db}:{branch}`                          branch details with the schema
 * - `POST   /db/{db}:{branch}/tables/{table}/data`        insert (server-generated id)
 * - `PUT    /db/{db}:{branch}/tables/{table}/data/{id}`   insert with id (`createOnly`) or replace
 * - `POST   /db/{db}:{branch}/tables/{table}/data/{id}`   upsert
 * - `PATCH  /db/{db}:{branch}/tables/{table}/data/{id}`   update (404 when missing; `ifVersion`: 422 when the version differs, checked in the same statement as the write)
 * - `GET    /db/{db}:{branch}/tables/{table}/data/{id}`   read (404 when missing)
 * - `DELETE /db/{db}:{branch}/tables/{table}/data/{id}`   delete, returning the record (404 when missing)
 * - `POST   /db/{db}:{branch}/tables/{table}/query`       filter, sort, offset/cursor pages, column selection with `link.*` expansion
 * - `POST   /db/{db}:{branch}/transaction`               insert/update/delete/get, all or nothing
 *
 * Column types: string (≤ 2048 characters), text, email, datetime, int, bool, link; `unique`
 * columns. Unknown columns, filter operators and page options are refused with 400, so a
 * request the real service would read differently fails here instead of passing quietly.
 * It is not Xata: search, aggregations, files, SQL, schema edits and branches are absent.
 * `ifVersion` is atomic only on PATCH (the one place the adapter sends it); on PUT, POST
 * and in transactions it is checked before the write, which concurrent writers can race.
 */
import { randomBytes, randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type pg from "pg"
import type { XataColumn, XataSchema, XataTable } from "../src/schema.js"

type Json = Record<string, unknown>
type Db = pg.Pool | pg.PoolClient

/** An error answered as `{ message }` with an HTTP status, like Xata's SimpleError. */
class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message)
  }
}

const RECORD_ID = /^[a-zA-Z0-9_\-~:]{1,255}$/
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const STRING_MAX = 2048
const PAGE_DEFAULT = 20
const PAGE_MAX = 1000
const TRANSACTION_MAX = 1000

const q = (name: string) => `"${name.replaceAll('"', '""')}"`

export interface StandInOptions {
  /** PostgreSQL pool; the stand-in's tables go into `pgSchema`, created by `start()`. */
  pool: pg.Pool
  pgSchema: string
  schema: XataSchema
  database?: string
  branch?: string
  apiKey?: string
}

export class XataStandIn {
  readonly database: string
  readonly branch: string
  readonly apiKey: string
  /** `METHOD path` of every request received, for tests that count round trips. */
  readonly requests: string[] = []
  #server: Server | undefined
  #port = 0

  constructor(private readonly options: StandInOptions) {
    this.database = options.database ?? "portcullis"
    this.branch = options.branch ?? "main"
    this.apiKey = options.apiKey ?? `xau_${randomBytes(8).toString("hex")}`
  }

  /**
   * The workspace host clients are given. It has the shape of a hosted Xata address
   * (the client refuses others), but requests to it only ever reach {@link fetch}.
   */
  readonly workspaceHost = `portcullis-${randomBytes(3).toString("hex")}.us-east-1.xata.sh`

  /** What a Xata client takes as `databaseURL` (the branch is a separate option). */
  get databaseURL(): string {
    return `https://${this.workspaceHost}/db/${this.database}`
  }

  /**
   * The `fetch` to give the client: sends requests for {@link workspaceHost} to this
   * server on the loopback interface, and refuses every other address, so a test can
   * never reach the real service.
   */
  readonly fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input)
    if (url.host !== this.workspaceHost) {
      return Promise.reject(new Error(`stand-in fetch: refusing ${url.origin}, only ${this.workspaceHost} is served`))
    }
    const headers = new Headers(init?.headers)
    headers.delete("host")
    return fetch(`http://127.0.0.1:${this.#port}${url.pathname}${url.search}`, { ...init, headers })
  }

  /** Fully-qualified PostgreSQL name of a Xata table, for raw reads in tests. */
  pgTable(table: string): string {
    return `${q(this.options.pgSchema)}.${q(table)}`
  }

  async start(): Promise<void> {
    const { pool, pgSchema, schema } = this.options
    await pool.query(`CREATE SCHEMA ${q(pgSchema)}`)
    for (const table of schema.tables) {
      const columns = table.columns.map((c) => `${q(c.name)} ${pgType(c)}${c.unique ? " UNIQUE" : ""}`)
      await pool.query(`CREATE TABLE ${this.pgTable(table.name)} (
        id text PRIMARY KEY,
        xata_version integer NOT NULL DEFAULT 0,
        xata_createdat timestamptz NOT NULL DEFAULT now(),
        xata_updatedat timestamptz NOT NULL DEFAULT now()
        ${columns.map((c) => `, ${c}`).join("")})`)
    }
    // Links after all tables exist. A deleted record leaves links to it empty, as on Xata.
    for (const table of schema.tables) {
      for (const column of table.columns) {
        if (column.type !== "link") continue
        await pool.query(`ALTER TABLE ${this.pgTable(table.name)} ADD FOREIGN KEY (${q(column.name)})
          REFERENCES ${this.pgTable(column.link!.table)} (id) ON DELETE SET NULL`)
      }
    }
    this.#server = createServer((req, res) => void this.#handle(req, res))
    await new Promise<void>((resolve) => this.#server!.listen(0, "127.0.0.1", resolve))
    this.#port = (this.#server.address() as AddressInfo).port
  }

  async stop(): Promise<void> {
    if (this.#server) {
      this.#server.closeAllConnections()
      await new Promise<void>((resolve) => this.#server!.close(() => resolve()))
    }
    await this.options.pool.query(`DROP SCHEMA IF EXISTS ${q(this.options.pgSchema)} CASCADE`)
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://stand-in")
    const method = req.method ?? "GET"
    this.requests.push(`${method} ${url.pathname}`)
    let status = 200
    let body: unknown
    try {
      if (req.headers.authorization !== `Bearer ${this.apiKey}`) throw new ApiError(401, "invalid API key")
      const raw = await readBody(req)
      const input = raw === "" ? undefined : parseJson(raw)
      ;[status, body] = await this.#route(method, url, input)
    } catch (error) {
      if (error instanceof TransactionError) {
        status = 400
        body = { id: randomUUID(), errors: [{ index: error.index, message: error.message }] }
      } else if (error instanceof ApiError) {
        status = error.status
        body = { id: randomUUID(), message: error.message }
      } else {
        const mapped = fromPgError(error)
        status = mapped.status
        body = { id: randomUUID(), message: mapped.message }
      }
    }
    if (status === 204) {
      res.writeHead(204).end()
      return
    }
    const text = JSON.stringify(body)
    res.writeHead(status, { "content-type": "application/json", "x-request-id": randomUUID() }).end(text)
  }

  async #route(method: string, url: URL, input: unknown): Promise<[number, unknown]> {
    const match = /^\/db\/([^/:]+):([^/]+)(\/.*)?$/.exec(decodeURIComponent(url.pathname))
    if (!match) throw new ApiError(404, `no route for ${url.pathname}`)
    const [, database, branch, rest = ""] = match
    if (database !== this.database || branch !== this.branch) {
      throw new ApiError(404, `branch ${database}:${branch} not found`)
    }
    const columns = url.searchParams.get("columns")?.split(",")
    const flag = (name: string) => url.searchParams.get(name) === "true"
    const ifVersion = url.searchParams.has("ifVersion") ? Number(url.searchParams.get("ifVersion")) : undefined

    if (rest === "" && method === "GET") {
      return [200, {
        databaseName: this.database, branchName: this.branch, id: "bb_standin", createdAt: new Date(0).toISOString(),
        version: 1, metadata: {}, schema: { tables: this.options.schema.tables },
      }]
    }
    if (rest === "/transaction" && method === "POST") return [200, await this.#transaction(object(input, "body"))]

    const tableMatch = /^\/tables\/([^/]+)\/(query|data)(?:\/([^/]+))?$/.exec(rest)
    if (!tableMatch) throw new ApiError(404, `no route for ${method} ${rest}`)
    const [, tableName, kind, id] = tableMatch
    const table = this.#table(tableName!)
    const pool = this.options.pool

    if (kind === "query" && !id && method === "POST") return [200, await this.#query(table, object(input ?? {}, "body"))]
    if (kind !== "data") throw new ApiError(404, `no route for ${method} ${rest}`)

    if (!id) {
      if (method !== "POST") throw new ApiError(405, `${method} not allowed`)
      const fields = object(input ?? {}, "record")
      const recordId = typeof fields.id === "string" ? fields.id : generatedId()
      const { id: _ignored, ...values } = fields
      return [201, await this.#respond(pool, table, await this.#insert(pool, table, recordId, values, true), columns)]
    }
    checkId(id)
    switch (method) {
      case "GET": {
        const row = await selectRow(pool, this.pgTable(table.name), id)
        if (!row) throw new ApiError(404, `record [${id}] not found`)
        return [200, await this.#project(pool, table, row, columns ?? ["*"])]
      }
      case "PUT": {
        const existing = await selectRow(pool, this.pgTable(table.name), id)
        if (existing && flag("createOnly")) throw new ApiError(422, `record with ID [${id}] already exists`)
        checkVersion(existing, ifVersion)
        const row = existing
          ? await this.#update(pool, table, id, object(input ?? {}, "record"), true)
          : await this.#insert(pool, table, id, object(input ?? {}, "record"), true)
        return [existing ? 200 : 201, await this.#respond(pool, table, row!, columns)]
      }
      case "POST": {
        const existing = await selectRow(pool, this.pgTable(table.name), id)
        checkVersion(existing, ifVersion)
        const row = existing
          ? await this.#update(pool, table, id, object(input ?? {}, "record"), false)
          : await this.#insert(pool, table, id, object(input ?? {}, "record"), true)
        return [existing ? 200 : 201, await this.#respond(pool, table, row!, columns)]
      }
      case "PATCH": {
        // With ifVersion the version check and the write are one statement, so of
        // concurrent updates expecting the same version exactly one is applied (Xata's
        // documented optimistic concurrency control); the others get 422.
        const row = await this.#update(pool, table, id, object(input ?? {}, "record"), false, ifVersion)
        if (!row) {
          const existing = await selectRow(pool, this.pgTable(table.name), id)
          if (!existing) throw new ApiError(404, `record [${id}] not found`)
          checkVersion(existing, ifVersion)
          throw new ApiError(422, `record [${id}] changed while it was updated`)
        }
        return [200, await this.#respond(pool, table, row, columns)]
      }
      case "DELETE": {
        // One statement: of concurrent deletes of the same record, exactly one gets it.
        const { rows } = await pool.query(`DELETE FROM ${this.pgTable(table.name)} WHERE id = $1 RETURNING *`, [id])
        if (rows.length === 0) throw new ApiError(404, `record [${id}] not found`)
        if (!columns) return [204, undefined]
        return [200, await this.#project(pool, table, rows[0], columns)]
      }
      default:
        throw new ApiError(405, `${method} not allowed`)
    }
  }

  #table(name: string): XataTable {
    const table = this.options.schema.tables.find((t) => t.name === name)
    if (!table) throw new ApiError(404, `table [${name}] not found`)
    return table
  }

  /** Xata's write response: `{id, xata}` alone, or the record when `columns` was sent. */
  async #respond(db: Db, table: XataTable, row: Json, columns: string[] | undefined): Promise<Json> {
    if (!columns) return { id: row.id, xata: { version: row.xata_version } }
    return this.#project(db, table, row, columns)
  }

  async #insert(db: Db, table: XataTable, id: string, fields: Json, createOnly: boolean): Promise<Json> {
    checkId(id)
    const values = toPg(table, fields)
    const names = Object.keys(values)
    const params = [id, ...names.map((n) => values[n])]
    const placeholders = params.map((_, i) => `$${i + 1}`)
    const conflict = createOnly ? "" : ` ON CONFLICT (id) DO UPDATE SET ${
      [...table.columns.map((c) => `${q(c.name)} = EXCLUDED.${q(c.name)}`),
        `xata_version = ${this.pgTable(table.name)}.xata_version + 1`, "xata_updatedat = now()"].join(", ")}`
    const { rows } = await db.query(
      `INSERT INTO ${this.pgTable(table.name)} (id${names.map((n) => `, ${q(n)}`).join("")})
       VALUES (${placeholders.join(", ")})${conflict} RETURNING *`,
      params,
    )
    return rows[0]
  }

  /**
   * Sets the given columns (`replace`: every other column becomes empty). Null when missing,
   * or when `ifVersion` is given and the record has another version.
   */
  async #update(db: Db, table: XataTable, id: string, fields: Json, replace: boolean, ifVersion?: number): Promise<Json | null> {
    const values = toPg(table, fields)
    if (replace) for (const c of table.columns) if (!(c.name in values)) values[c.name] = null
    const names = Object.keys(values)
    const sets = [...names.map((n, i) => `${q(n)} = $${i + 2}`), "xata_version = xata_version + 1", "xata_updatedat = now()"]
    const params: unknown[] = [id, ...names.map((n) => values[n])]
    const versionCheck = ifVersion === undefined ? "" : ` AND xata_version = $${params.push(ifVersion)}`
    const { rows } = await db.query(
      `UPDATE ${this.pgTable(table.name)} SET ${sets.join(", ")} WHERE id = $1${versionCheck} RETURNING *`,
      params,
    )
    return rows[0] ?? null
  }

  async #query(table: XataTable, body: Json): Promise<Json> {
    for (const key of Object.keys(body)) {
      if (!["filter", "sort", "page", "columns", "consistency"].includes(key)) throw new ApiError(400, `unsupported query option [${key}]`)
    }
    const page = object(body.page ?? {}, "page")
    for (const key of Object.keys(page)) {
      if (!["size", "offset", "after"].includes(key)) throw new ApiError(400, `page option [${key}] is not supported by the stand-in`)
    }
    let filter: unknown = body.filter ?? {}
    let sort = body.sort
    let columns = (body.columns ?? ["*"]) as string[]
    let offset = page.offset === undefined ? 0 : Number(page.offset)
    if (typeof page.after === "string") {
      // Cursors carry the query they continue, as Xata's do (filter and sort are not resent).
      const cursor = decodeCursor(page.after)
      ;({ filter, sort, columns } = cursor)
      offset = cursor.offset + (page.offset === undefined ? 0 : Number(page.offset))
    }
    const size = page.size === undefined ? PAGE_DEFAULT : Number(page.size)
    if (!Number.isInteger(size) || size < 1 || size > PAGE_MAX) throw new ApiError(400, `page size must be 1..${PAGE_MAX}`)
    if (!Number.isInteger(offset) || offset < 0) throw new ApiError(400, "page offset must be a non-negative integer")

    const params: unknown[] = []
    const where = this.#filterSql(table, filter, params)
    const order = sortSql(table, sort)
    const client = await this.options.pool.connect()
    try {
      // One snapshot for the rows and their expanded links.
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
      const { rows } = await client.query(
        `SELECT * FROM ${this.pgTable(table.name)} WHERE ${where} ORDER BY ${order} LIMIT ${size + 1} OFFSET ${offset}`,
        params,
      )
      const more = rows.length > size
      const records = []
      for (const row of rows.slice(0, size)) records.push(await this.#project(client, table, row, columns))
      await client.query("COMMIT")
      const cursor = encodeCursor({ filter, sort, columns, offset: offset + Math.min(rows.length, size) })
      return { records, meta: { page: { cursor, more, size } } }
    } catch (error) {
      await client.query("ROLLBACK")
      throw error
    } finally {
      client.release()
    }
  }

  /** Compiles a Xata filter expression to SQL, appending values to `params`. */
  #filterSql(table: XataTable, filter: unknown, params: unknown[]): string {
    if (Array.isArray(filter)) return and(filter.map((f) => this.#filterSql(table, f, params)))
    const expression = object(filter, "filter")
    const parts: string[] = []
    for (const [key, value] of Object.entries(expression)) {
      const list = (v: unknown) => (Array.isArray(v) ? v : [v]).map((f) => this.#filterSql(table, f, params))
      switch (key) {
        case "$all": parts.push(and(list(value))); break
        case "$any": parts.push(or(list(value))); break
        case "$not": parts.push(`NOT (${and(list(value))})`); break
        case "$none": parts.push(`NOT (${or(list(value))})`); break
        case "$exists": parts.push(`${this.#columnSql(table, String(value)).sql} IS NOT NULL`); break
        case "$notExists": parts.push(`${this.#columnSql(table, String(value)).sql} IS NULL`); break
        default:
          if (key.startsWith("$")) throw new ApiError(400, `filter operator [${key}] is not supported by the stand-in`)
          parts.push(this.#constraintSql(table, key, value, params))
      }
    }
    return and(parts)
  }

  /** `column: value` or `column: { $op: value }`. A dotted column filters on a linked record. */
  #constraintSql(table: XataTable, key: string, constraint: unknown, params: unknown[]): string {
    const dot = key.indexOf(".")
    if (dot > 0 && key.slice(dot + 1) !== "id") {
      const link = table.columns.find((c) => c.name === key.slice(0, dot) && c.type === "link")
      if (!link) throw new ApiError(400, `column [${key}]: not a link`)
      const linked = this.#table(link.link!.table)
      const inner = this.#constraintSql(linked, key.slice(dot + 1), constraint, params)
      return `${q(link.name)} IN (SELECT id FROM ${this.pgTable(linked.name)} WHERE ${inner})`
    }
    const column = this.#columnSql(table, dot > 0 ? key.slice(0, dot) : key)
    const value = (v: unknown) => {
      params.push(filterValue(column.column, v))
      return `$${params.length}`
    }
    if (constraint === null) return `${column.sql} IS NULL`
    if (typeof constraint !== "object") return `${column.sql} = ${value(constraint)}`
    if (Array.isArray(constraint)) return or(constraint.map((c) => this.#constraintSql(table, key, c, params)))
    const parts: string[] = []
    for (const [op, operand] of Object.entries(constraint as Json)) {
      switch (op) {
        case "$is": parts.push(`${column.sql} = ${value(operand)}`); break
        case "$isNot": parts.push(`${column.sql} IS DISTINCT FROM ${value(operand)}`); break
        case "$gt": parts.push(`${column.sql} > ${value(operand)}`); break
        case "$ge": parts.push(`${column.sql} >= ${value(operand)}`); break
        case "$lt": parts.push(`${column.sql} < ${value(operand)}`); break
        case "$le": parts.push(`${column.sql} <= ${value(operand)}`); break
        case "$any":
          if (!Array.isArray(operand)) throw new ApiError(400, "$any takes a list")
          parts.push(operand.length === 0 ? "FALSE" : or(operand.map((o) =>
            o !== null && typeof o === "object" ? this.#constraintSql(table, key, o, params) : `${column.sql} = ${value(o)}`)))
          break
        case "$all":
          parts.push(and((Array.isArray(operand) ? operand : [operand]).map((o) => this.#constraintSql(table, key, o, params))))
          break
        case "$not": parts.push(`NOT (${this.#constraintSql(table, key, operand, params)})`); break
        default: throw new ApiError(400, `filter operator [${op}] is not supported by the stand-in`)
      }
    }
    return and(parts)
  }

  #columnSql(table: XataTable, name: string): { sql: string; column: XataColumn | undefined } {
    if (name === "id") return { sql: "id", column: undefined }
    const column = table.columns.find((c) => c.name === name)
    if (!column) throw new ApiError(400, `column [${name}]: column not found`)
    return { sql: q(column.name), column }
  }

  /** A stored row as Xata returns it: empty columns left out, links as `{id}` or expanded. */
  async #project(db: Db, table: XataTable, row: Json, columns: string[]): Promise<Json> {
    const record: Json = {
      id: row.id,
      xata: { version: row.xata_version, createdAt: iso(row.xata_createdat), updatedAt: iso(row.xata_updatedat) },
    }
    const all = columns.includes("*")
    for (const column of table.columns) {
      const nested = columns.filter((c) => c.startsWith(`${column.name}.`)).map((c) => c.slice(column.name.length + 1))
      if (!all && !columns.includes(column.name) && nested.length === 0) continue
      const value = row[column.name]
      if (value === null || value === undefined) continue
      if (column.type === "link") {
        if (nested.length === 0) {
          record[column.name] = { id: value }
        } else {
          const linked = this.#table(column.link!.table)
          const target = await selectRow(db, this.pgTable(linked.name), String(value))
          if (target) record[column.name] = await this.#project(db, linked, target, nested)
        }
        continue
      }
      record[column.name] = fromPg(column, value)
    }
    for (const c of columns) {
      if (c === "*" || c === "id" || c.startsWith("xata")) continue
      if (!table.columns.some((col) => c === col.name || c.startsWith(`${col.name}.`))) {
        throw new ApiError(400, `column [${c}]: column not found`)
      }
    }
    return record
  }

  async #transaction(body: Json): Promise<Json> {
    const operations = body.operations
    if (!Array.isArray(operations) || operations.length === 0) throw new ApiError(400, "operations must be a non-empty list")
    if (operations.length > TRANSACTION_MAX) throw new ApiError(400, `at most ${TRANSACTION_MAX} operations per transaction`)
    const client = await this.options.pool.connect()
    try {
      await client.query("BEGIN")
      const results: Json[] = []
      for (const [index, raw] of operations.entries()) {
        try {
          results.push(await this.#operation(client, object(raw, "operation")))
        } catch (error) {
          await client.query("ROLLBACK")
          const message = error instanceof ApiError ? error.message : fromPgError(error).message
          throw new TransactionError(index, message)
        }
      }
      await client.query("COMMIT")
      return { results }
    } catch (error) {
      if (!(error instanceof TransactionError)) await client.query("ROLLBACK").catch(() => {})
      throw error
    } finally {
      client.release()
    }
  }

  async #operation(db: pg.PoolClient, operation: Json): Promise<Json> {
    const [kind, ...others] = Object.keys(operation)
    if (!kind || others.length > 0) throw new ApiError(400, "an operation has exactly one kind")
    const op = object(operation[kind], kind)
    const table = this.#table(String(op.table))
    const columns = op.columns as string[] | undefined
    const withColumns = async (result: Json, row: Json | null) =>
      columns && row ? { ...result, columns: await this.#project(db, table, row, columns) } : result
    switch (kind) {
      case "insert": {
        const { id, ...fields } = object(op.record, "record")
        const recordId = typeof id === "string" ? id : generatedId()
        const createOnly = op.createOnly === true
        const existing = await selectRow(db, this.pgTable(table.name), recordId)
        if (existing && createOnly) throw new ApiError(422, `record with ID [${recordId}] already exists`)
        checkVersion(existing, op.ifVersion as number | undefined)
        const row = await this.#insert(db, table, recordId, fields, createOnly)
        return withColumns({ operation: "insert", id: recordId, rows: 1 }, row)
      }
      case "update": {
        const id = String(op.id)
        const existing = await selectRow(db, this.pgTable(table.name), id)
        checkVersion(existing, op.ifVersion as number | undefined)
        const fields = object(op.fields, "fields")
        let row: Json | null
        if (existing) row = await this.#update(db, table, id, fields, false)
        else if (op.upsert === true) row = await this.#insert(db, table, id, fields, true)
        else throw new ApiError(404, `record [${id}] not found`)
        return withColumns({ operation: "update", id, rows: 1 }, row)
      }
      case "delete": {
        const id = String(op.id)
        const { rows } = await db.query(`DELETE FROM ${this.pgTable(table.name)} WHERE id = $1 RETURNING *`, [id])
        if (rows.length === 0 && op.failIfMissing === true) throw new ApiError(404, `record [${id}] not found`)
        return withColumns({ operation: "delete", rows: rows.length }, rows[0] ?? null)
      }
      case "get": {
        const row = await selectRow(db, this.pgTable(table.name), String(op.id))
        return row ? { operation: "get", columns: await this.#project(db, table, row, columns ?? ["*"]) } : { operation: "get" }
      }
      default:
        throw new ApiError(400, `unknown operation [${kind}]`)
    }
  }
}

class TransactionError extends Error {
  constructor(readonly index: number, message: string) {
    super(message)
  }
}

function pgType(column: XataColumn): string {
  switch (column.type) {
    case "datetime": return "timestamptz"
    case "int": return "bigint"
    case "bool": return "boolean"
    default: return "text"
  }
}

/** API values to PostgreSQL parameters, checked the way Xata checks each column type. */
function toPg(table: XataTable, fields: Json): Json {
  const values: Json = {}
  for (const [name, value] of Object.entries(fields)) {
    const column = table.columns.find((c) => c.name === name)
    if (!column) throw new ApiError(400, `column [${name}]: column not found`)
    values[name] = value === null ? null : checkValue(column, value)
  }
  return values
}

function checkValue(column: XataColumn, value: unknown): unknown {
  const bad = (expected: string): never => {
    throw new ApiError(400, `column [${column.name}]: invalid value ${JSON.stringify(value)}, expected ${expected}`)
  }
  switch (column.type) {
    case "string":
      if (typeof value !== "string") return bad("a string")
      if (value.length > STRING_MAX) return bad(`at most ${STRING_MAX} characters (use a text column)`)
      return value
    case "text":
      return typeof value === "string" ? value : bad("a string")
    case "email":
      return typeof value === "string" && EMAIL.test(value) ? value : bad("an email address")
    case "datetime": {
      if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(Date.parse(value))) {
        return bad("an RFC 3339 date-time")
      }
      return new Date(value)
    }
    case "int":
      return Number.isSafeInteger(value) ? value : bad("an integer")
    case "bool":
      return typeof value === "boolean" ? value : bad("a boolean")
    case "link": {
      const id = typeof value === "string" ? value : (value as { id?: unknown })?.id
      return typeof id === "string" && RECORD_ID.test(id) ? id : bad("a record id")
    }
  }
}

function filterValue(column: XataColumn | undefined, value: unknown): unknown {
  if (column?.type === "datetime" && typeof value === "string") return new Date(value)
  if (column?.type === "link" && value && typeof value === "object") return (value as { id?: unknown }).id
  return value
}

function fromPg(column: XataColumn, value: unknown): unknown {
  if (column.type === "datetime") return iso(value)
  if (column.type === "int") return Number(value)
  return value
}

function iso(value: unknown): string {
  return value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString()
}

function sortSql(table: XataTable, sort: unknown): string {
  const keys: string[] = []
  for (const item of sort === undefined ? [] : Array.isArray(sort) ? sort : [sort]) {
    for (const [name, direction] of Object.entries(object(item, "sort"))) {
      if (name !== "id" && !table.columns.some((c) => c.name === name)) throw new ApiError(400, `column [${name}]: column not found`)
      if (direction !== "asc" && direction !== "desc") throw new ApiError(400, `sort direction [${String(direction)}] is not supported`)
      keys.push(`${name === "id" ? "id" : q(name)} ${direction.toUpperCase()}`)
    }
  }
  return [...keys, "xata_createdat ASC", "id ASC"].join(", ")
}

async function selectRow(db: Db, table: string, id: string): Promise<Json | null> {
  const { rows } = await db.query(`SELECT * FROM ${table} WHERE id = $1`, [id])
  return rows[0] ?? null
}

function checkId(id: string): void {
  if (!RECORD_ID.test(id)) throw new ApiError(400, `invalid record id [${id}]`)
}

function checkVersion(existing: Json | null, ifVersion: number | undefined): void {
  if (ifVersion !== undefined && existing && existing.xata_version !== ifVersion) {
    throw new ApiError(422, `record version is ${String(existing.xata_version)}, not ${ifVersion}`)
  }
}

function generatedId(): string {
  // Xata's generated ids look like rec_ followed by 20 base32 characters.
  const alphabet = "abcdefghijklmnopqrstuv0123456789"
  return `rec_${Array.from(randomBytes(20), (b) => alphabet[b % 32]).join("")}`
}

function and(parts: string[]): string {
  return parts.length === 0 ? "TRUE" : parts.map((p) => `(${p})`).join(" AND ")
}

function or(parts: string[]): string {
  return parts.length === 0 ? "FALSE" : parts.map((p) => `(${p})`).join(" OR ")
}

function object(value: unknown, what: string): Json {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new ApiError(400, `${what} must be an object`)
  return value as Json
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw new ApiError(400, "body is not valid JSON")
  }
}

interface Cursor {
  filter: unknown
  sort: unknown
  columns: string[]
  offset: number
}

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString("base64url")
}

function decodeCursor(text: string): Cursor {
  try {
    return JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as Cursor
  } catch {
    throw new ApiError(400, "invalid cursor")
  }
}

function fromPgError(error: unknown): { status: number; message: string } {
  const e = error as { code?: string; constraint?: string; detail?: string; message?: string }
  if (e.code === "23505") return { status: 400, message: `unique constraint violated: ${e.detail ?? e.constraint ?? ""}` }
  if (e.code === "23503") return { status: 400, message: `invalid link: ${e.detail ?? "linked record not found"}` }
  if (e.code === "22P02" || e.code === "22003") return { status: 400, message: `invalid value: ${e.message ?? ""}` }
  return { status: 500, message: `stand-in failure: ${e.message ?? String(error)}` }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })
}
