import { Client } from "./hazards/index.js";
import { connect, report } from "./connect.js";

/** Awaiting what an async function returns awaits a `then` method: the client must have none. */
async function open(): Promise<Client> {
  return new Client(await connect(), { drift: "error" });
}

const hazards = await open();
await report(hazards.sdk, {
  constructor: () => hazards.constructorTool({ toString: "x" }),
  toString: () => hazards.toStringTool(),
  hasOwnProperty: () => hazards.hasOwnPropertyTool({ name: "x" }),
  then: () => hazards.thenTool(),
  empty: () => hazards.optionalNames(),
  named: () => hazards.optionalNames({ toString: "a", constructor: 1, hasOwnProperty: true, valueOf: null }),
  drift: async () => hazards.drift,
});
