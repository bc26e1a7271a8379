import { registerTools, SERVER, serveStdio, type Handlers } from "./hazards/index.js";
import { serve } from "./serve.js";

const handlers: Handlers = {
  constructorTool: (input) => ({ constructor: input.toString }),
  toStringTool: () => "text",
  hasOwnPropertyTool: ({ name }) => name === "x",
  thenTool: () => 1,
  optionalNames: (input) => input,
};

serve(SERVER, registerTools, handlers, serveStdio);
