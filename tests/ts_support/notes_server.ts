import { registerTools, SERVER, serveStdio, ToolError, type Handlers, type Note } from "./notes/index.js";
import { serve } from "./serve.js";

// The note the spec's examples name is there from the start.
const notes = new Map<string, Note>([["n_0000abcd", { id: "n_0000abcd", title: "Groceries", body: "milk", tags: ["home"] }]]);
let next = 0;

const handlers: Handlers = {
  createNote({ title, body, tags = [] }) {
    const id = `n_${(next++).toString(16).padStart(8, "0")}`;
    const note: Note = body === undefined ? { id, title, tags } : { id, title, body, tags };
    notes.set(id, note);
    return note;
  },
  getNote({ id }) {
    const note = notes.get(id);
    if (note === undefined) throw new ToolError(`no note ${id}`);
    return note;
  },
  listNotes({ tag, limit = 20 }) {
    return [...notes.values()].filter((n) => tag === undefined || (n.tags ?? []).includes(tag)).slice(0, limit);
  },
  countNotes() {
    return notes.size;
  },
  deleteNote({ id }) {
    return { deleted: notes.delete(id) };
  },
  async tagTree({ root }) {
    return { tag: root ?? "home", children: [{ tag: `${root ?? "home"}-garden` }] };
  },
};

serve(SERVER, registerTools, handlers, serveStdio);
