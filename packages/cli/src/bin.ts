#!/usr/bin/env node
import { main } from "./index.js"

const code = await main(process.argv.slice(2), {
  out: (s) => console.log(s),
  err: (s) => console.error(s),
  env: process.env,
  cwd: process.cwd(),
})
process.exitCode = code
