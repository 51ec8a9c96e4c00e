import type { RequestContext } from "../context.js"
import { databaseStrategy } from "./database.js"
import { jwtStrategy } from "./jwt.js"

export type { SessionStrategy, SignInResult } from "./strategy.js"
import type { SessionStrategy } from "./strategy.js"

export function sessionStrategy(ctx: RequestContext): SessionStrategy {
  return ctx.config.session.strategy === "database" ? databaseStrategy : jwtStrategy
}
