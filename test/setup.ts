import { applyD1Migrations, env } from "cloudflare:test";
import { afterEach } from "vitest";
import { setClock } from "../src/core/clock";

// Storage is isolated per test file; migrations are applied once per file's database.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

afterEach(() => setClock());
