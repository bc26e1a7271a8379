// The client of a spec set imported from a server that sends `$ref`s (features, `refs: keep`),
// against that server: the imported spec's definitions have them inlined, which is no drift.
import { Client } from "./imported/index.js";
import { connect, report } from "./connect.js";

const imported = new Client(await connect(), { drift: "error" });
await report(imported.sdk, {
  drift: () => imported.checkDrift(),
  tree: () => imported.tree({ depth: 1 }),
  combinators: () => imported.combinators({ shape: { kind: "circle", radius: 1 }, id: 3 }),
});
