import { Client, type Note } from "./notes/index.js";
import { connect, report } from "./connect.js";

const notes = new Client(await connect(), { drift: "error" });
let created: Note | undefined;
await report(notes.sdk, {
  create: async () => (created = await notes.createNote({ title: "Milk", tags: ["shop"] })),
  get: () => notes.getNote({ id: created?.id ?? "n_00000000" }),
  list: () => notes.listNotes({ tag: "shop" }),
  count: () => notes.countNotes(),
  tree: () => notes.tagTree({ root: "home" }),
  delete: () => notes.deleteNote({ id: created?.id ?? "n_00000000" }),
  missing: () => notes.getNote({ id: "n_0000dead" }),
  drift: async () => notes.drift,
});
