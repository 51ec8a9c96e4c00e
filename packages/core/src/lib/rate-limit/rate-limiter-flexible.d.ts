// Types for the one module of `rate-limiter-flexible` core imports directly (see memory.ts).
declare module "rate-limiter-flexible/lib/RateLimiterMemory.js" {
  import { RateLimiterMemory } from "rate-limiter-flexible"
  export default RateLimiterMemory
}
