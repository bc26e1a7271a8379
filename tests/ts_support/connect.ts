// Connect the official SDK client to a server started over stdio, in one protocol era.
//
//   node X_client.js ERA COMMAND ARGS...      (ERA: "legacy" or "2026-07-28")
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

export async function connect(): Promise<Client> {
  const [era, command, ...args] = process.argv.slice(2);
  if (era === undefined || command === undefined) throw new Error("usage: ERA COMMAND ARGS...");
  const options = era === "legacy" ? {} : { versionNegotiation: { mode: { pin: era } } };
  const client = new Client({ name: "toolgen-ts-test", version: "1.0.0" }, options);
  await client.connect(new StdioClientTransport({ command, args }));
  return client;
}

/** Print what `calls` resolve to (or the error each throws) as one JSON object, then close. */
export async function report(client: Client, calls: Record<string, () => Promise<unknown>>): Promise<void> {
  const out: Record<string, unknown> = { revision: client.getNegotiatedProtocolVersion() };
  for (const [name, call] of Object.entries(calls)) {
    try {
      out[name] = { value: await call() };
    } catch (error) {
      out[name] = { error: error instanceof Error ? error.name : String(error), message: String(error) };
    }
  }
  console.log(JSON.stringify(out));
  await client.close();
}
