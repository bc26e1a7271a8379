// One tools/call through the official TypeScript SDK client (v2, @modelcontextprotocol/client),
// answering whatever the server asks (elicitation, sampling, roots) from fixed answers.
//
//   node call_tool.mjs CLIENT_DIR URL TOOL ERA     (ERA: "2026-07-28" or "legacy")
//
// CLIENT_DIR is the npm folder holding node_modules/@modelcontextprotocol/client. Prints one
// JSON line: {"result": CallToolResult, "asked": [methods the handlers answered, in order]}.
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [clientDir, url, tool, era] = process.argv.slice(2);
const entry = join(clientDir, "node_modules/@modelcontextprotocol/client/dist/index.mjs");
const { Client, StreamableHTTPClientTransport } = await import(pathToFileURL(entry).href);

const asked = [];
const client = new Client(
  { name: "toolgen-ts-test", version: "1.0.0" },
  {
    capabilities: { elicitation: {}, sampling: {}, roots: {} },
    ...(era === "legacy" ? {} : { versionNegotiation: { mode: { pin: era } } }),
  },
);
client.setRequestHandler("elicitation/create", async (request) => {
  asked.push("elicitation/create");
  const color = request.params.message.includes("color");
  return { action: "accept", content: color ? { color: "red" } : { name: "Ada" } };
});
client.setRequestHandler("sampling/createMessage", async () => {
  asked.push("sampling/createMessage");
  return { role: "assistant", content: { type: "text", text: "Paris." }, model: "m" };
});
client.setRequestHandler("roots/list", async () => {
  asked.push("roots/list");
  return { roots: [{ uri: "file:///work", name: "work" }] };
});

await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const result = await client.callTool({ name: tool, arguments: {} });
console.log(JSON.stringify({ result, asked }));
await client.close();
