import { runRateLimitStoreContract } from "@portcullis/adapter-test/rate-limit"
import { memoryRateLimitStore } from "@portcullis/core/rate-limit"

runRateLimitStoreContract("memoryRateLimitStore", () => memoryRateLimitStore())
