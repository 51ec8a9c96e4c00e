import { memoryOidcProviderStore } from "@portcullis/oidc-provider/memory"
import { oidcProviderStoreConformance } from "@portcullis/oidc-provider/testing"

// The memory store keeps the contract every backend keeps: the same suite as SQL and Redis.
oidcProviderStoreConformance("memoryOidcProviderStore", () => ({ store: memoryOidcProviderStore(), cleanup: async () => {} }))
