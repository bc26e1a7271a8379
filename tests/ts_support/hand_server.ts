// The notes tools through registerTools beside tools registered by hand with the SDK's own
// registerTool, one before and one after; the handle registerTools returns disables delete_note.
import { McpServer } from "@modelcontextprotocol/server";
import * as z from "zod";
import { registerTools, SERVER, serveStdio, type Handlers } from "./notes/index.js";

const handlers: Handlers = {
  createNote: ({ title }) => ({ id: "n_00000001", title }),
  getNote: ({ id }) => ({ id, title: "Groceries" }),
  listNotes: () => [],
  countNotes: () => 0,
  deleteNote: () => ({ deleted: true }),
  tagTree: () => ({ tag: "home" }),
};

serveStdio(() => {
  const server = new McpServer({ name: SERVER.name, version: SERVER.version });
  server.registerTool("echo_before", { description: "Echo, registered first.", inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  const tools = registerTools(server, handlers);
  tools.deleteNote.disable();
  server.registerTool("echo_after", { title: "Echo", inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({
    content: [{ type: "text", text: text.toUpperCase() }],
  }));
  return server;
});
