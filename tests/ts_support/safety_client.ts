// The generated notes client over a stand-in SDK client whose server lists `count_notes` (read-only
// in the spec) with the annotations given as JSON in argv[2], one listing entry each.
import { Client, LISTINGS } from "./notes/index.js";

const revision = "2025-11-25";
const hints = JSON.parse(process.argv[2] ?? "[]") as unknown[];
const tools = (LISTINGS[revision]?.tools ?? []).flatMap((tool): unknown[] =>
  tool["name"] === "count_notes" ? hints.map((annotations) => ({ ...tool, annotations })) : [tool],
);
const called: string[] = [];
const sdk = {
  listTools: () => Promise.resolve({ tools }),
  callTool: ({ name }: { name: string }) => {
    called.push(name);
    return Promise.resolve({ content: [], structuredContent: { result: 1 } });
  },
  getNegotiatedProtocolVersion: () => revision,
};
const notes = new Client(sdk as unknown as ConstructorParameters<typeof Client>[0], { drift: "ignore" });
let error: string | null = null;
try {
  await notes.countNotes();
} catch (caught) {
  error = (caught as Error).name;
}
const drift = (notes.drift ?? []).map((d) => [d.tool, d.field]);
console.log(JSON.stringify({ called, error, drift }));
