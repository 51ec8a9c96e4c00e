import mysql from "mysql2/promise"
import { mysqlService, serviceAvailable } from "@portcullis/adapter-test"
import { createMysqlKysely } from "@portcullis/sql-adapter"
import { runSqlSuites } from "./harness.js"

const service = mysqlService()
const gate = await serviceAvailable(service, async () => {
  const connection = await mysql.createConnection({ uri: service.url, connectTimeout: 3_000 })
  await connection.end()
})

gate.describe("MariaDB/MySQL", () => {
  runSqlSuites("MariaDB/MySQL", "mysql", (config) => createMysqlKysely(service.url, config))
})
