/// <reference types="vite/client" />
// `env` from cloudflare:test / cloudflare:workers is typed as Cloudflare.Env: give it our bindings.
type LoreBindings = import("../src/env").Env;
declare namespace Cloudflare {
  interface Env extends LoreBindings {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    LORE_TRANSCRIPT: string;
  }
}
