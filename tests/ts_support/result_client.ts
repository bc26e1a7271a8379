// The generated notes client over a stand-in SDK client whose server answers `count_notes` (an
// integer output, wrapped in 2025-11-25) with the structuredContent given as JSON in argv[2]
// ("absent": none): the client hands on only a value its output schema accepts.
import { Client, LISTINGS } from "./notes/index.js";

const revision = "2025-11-25";
const given = process.argv[2] ?? "absent";
const sdk = {
  listTools: () => Promise.resolve({ tools: LISTINGS[revision]?.tools ?? [] }),
  callTool: () => Promise.resolve(given === "absent" ? { content: [] } : { content: [], structuredContent: JSON.parse(given) }),
  getNegotiatedProtocolVersion: () => revision,
};
const notes = new Client(sdk as unknown as ConstructorParameters<typeof Client>[0], { drift: "error" });
try {
  console.log(JSON.stringify({ value: await notes.countNotes() }));
} catch (caught) {
  console.log(JSON.stringify({ error: caught instanceof Error ? caught.name : String(caught) }));
}
