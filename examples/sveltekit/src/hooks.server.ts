export { handle } from "./lib/auth"
