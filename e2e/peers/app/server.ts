// An Express app on the newest majors of the peers Portcullis accepts (e2e/peers/newest.test.ts
// installs express, nodemailer, pg and ioredis at their registry `latest` beside the packed
// Portcullis tarballs). Email sign-in end to end: Nodemailer sends the link over SMTP, the
// user, verification token and session live in PostgreSQL (STORE=postgres) or Redis
// (STORE=redis).
import express from "express"
import { ExpressAuth, getSession } from "@portcullis/express"
import Nodemailer from "@portcullis/express/providers/nodemailer"
import { createPostgresKysely, migrateToLatest, SqlAdapter } from "@portcullis/sql-adapter"
import { createRedisClient, RedisAdapter } from "@portcullis/redis-adapter"

const env = (name: string): string => {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set`)
  return value
}

async function adapter() {
  if (env("STORE") === "postgres") {
    const db = createPostgresKysely(env("DATABASE_URL"))
    await migrateToLatest(db, { dialect: "postgres" })
    return SqlAdapter(db)
  }
  return RedisAdapter(createRedisClient(env("REDIS_URL")), { prefix: env("REDIS_PREFIX") })
}

const config = {
  adapter: await adapter(),
  providers: [Nodemailer({ server: env("SMTP_URL"), from: "Newest peers <peers@example.com>" })],
}

const app = express()
app.set("trust proxy", true)
app.use("/auth", ExpressAuth(config))
app.get("/me", async (req, res) => {
  res.json(await getSession(req, config))
})

const port = Number(env("PORT"))
app.listen(port, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${port}`))
