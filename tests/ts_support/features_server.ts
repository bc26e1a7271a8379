import { registerTools, SERVER, serveStdio, ToolError, type Handlers, type ScalarsOutput } from "./features/index.js";
import { serve } from "./serve.js";

const handlers: Handlers = {
  scalars: ({ text, when }) => {
    // Asked to, return what the output schema refuses (as a handler in JavaScript could).
    if (when === "return invalid output") return { ok: false } as unknown as ScalarsOutput;
    return { ok: true, echo: text };
  },
  collections: ({ tags = [] }) => ["a", ...tags],
  combinators: ({ shape }) => (shape.kind === "circle" ? shape : null),
  tree: ({ depth = 1 }) => ({ label: "root", children: depth > 0 ? [{ label: "leaf" }] : [] }),
  oddNames: (input) => ({ constructor: input["my-prop"] }),
  toStringTool: () => "text",
  pair: () => ["abc", 1],
  getX: () => 1,
  tool3dRender: () => true,
  nothing: () => null,
  pick: () => "left",
  textOnly: ({ say }) => {
    if (say === "crash") throw new Error("secret internals");
    if (say === "refuse") throw new ToolError("refused, as asked");
    return say;
  },
};

serve(SERVER, registerTools, handlers, serveStdio);
