/// <reference types="vite/client" />
// `env` from cloudflare:test / cloudflare:workers is typed as Cloudflare.Env: give it our bindings.
type LoreBindings = import("../src/env").Env;
declare namespace Cloudflare {
  interface Env extends LoreBindings {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    LORE_TRANSCRIPT: string;
  }
}

// Vite's `?raw` imports (fixtures and shipped data files as text).
declare module "*?raw" {
  const text: string;
  export default text;
}
