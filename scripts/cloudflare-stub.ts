/**
 * For scripts that run Worker code under Node (the scanners in `perf:scan` and `eval:scan`): the
 * areas' modules reach `cloudflare:workers` (the Durable Object classes) through shared imports,
 * which Node has no module for and a scan does not need, so it resolves to an empty stand-in.
 * Import this first, and the Worker code after it with `import()`, so the hook is on before.
 */
import { registerHooks } from "node:module";

registerHooks({
  resolve: (specifier, context, next) =>
    specifier.startsWith("cloudflare:")
      ? {
          url: "data:text/javascript,export class DurableObject {}; export class WorkerEntrypoint {}; export class RpcTarget {}; export const env = {};",
          shortCircuit: true,
        }
      : next(specifier, context),
});
