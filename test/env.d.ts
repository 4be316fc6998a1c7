declare module "cloudflare:test" {
  interface ProvidedEnv {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
  }
}
