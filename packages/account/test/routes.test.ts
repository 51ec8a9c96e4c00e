/** The account center's sections on the memory adapter (the specs: `routes.spec.ts`). */
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { sectionSpecs } from "./routes.spec.js"

sectionSpecs(() => MemoryAdapter())
