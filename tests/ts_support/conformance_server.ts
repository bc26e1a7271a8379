// The conformance fixtures as plain handlers: content blocks, errors and echoes. What the
// Python handlers do through protocol features (sampling, elicitation, tasks, input
// requests) is answered here with text: these handlers only serve the listing and the calls.
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { registerTools, SERVER, serveStdio, ToolError, type Handlers } from "./conformance/index.js";
import { serve } from "./serve.js";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";
const text = (t: string) => t;

const handlers: Handlers = {
  testSimpleText: () => text("This is a simple text response for testing."),
  testImageContent: () => [{ type: "image", data: PNG, mimeType: "image/png" }],
  testAudioContent: () => [{ type: "audio", data: WAV, mimeType: "audio/wav" }],
  testEmbeddedResource: () => [
    { type: "resource", resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "An embedded resource." } },
  ],
  testMultipleContentTypes: () => [
    { type: "text", text: "Multiple content types test:" },
    { type: "image", data: PNG, mimeType: "image/png" },
    { type: "resource", resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: "{}" } },
  ],
  testToolWithLogging: () => text("Logging completed"),
  testToolWithProgress: () => text("Progress completed"),
  testErrorHandling: () => {
    throw new ToolError("This tool intentionally returns an error for testing");
  },
  testSampling: ({ prompt }) => text(`Asked: ${prompt}`),
  testElicitation: ({ message }) => text(`Told: ${message}`),
  testElicitationSep1034Defaults: () => text("defaults"),
  testElicitationSep1330Enums: () => text("enums"),
  testLoggingTool: () => text("logged"),
  testParamHeader: ({ region }) => text(region),
  jsonSchema202012Tool: (input) => text(JSON.stringify(input)),
  testInputRequiredResultElicitation: () => text("elicitation"),
  testInputRequiredResultSampling: () => text("sampling"),
  testInputRequiredResultListRoots: () => text("roots"),
  testInputRequiredResultRequestState: () => text("state"),
  testInputRequiredResultMultipleInputs: () => text("inputs"),
  testInputRequiredResultMultiRound: () => text("rounds"),
  testInputRequiredResultTamperedState: () => text("tampered"),
  testInputRequiredResultCapabilities: () => text("capabilities"),
  testStreamingElicitation: () => text("streaming"),
  testMissingCapability: () => text("sampled"),
  greet: ({ name }) => text(`Hello, ${name}!`),
  slowCompute: async ({ seconds, label }) => {
    await new Promise((done) => setTimeout(done, Math.min(seconds, 0.01) * 1000));
    return text(`computed ${label ?? "nothing"}`);
  },
  failingJob: () => {
    throw new ToolError("the job failed");
  },
  protocolErrorJob: () => {
    throw new ProtocolError(ProtocolErrorCode.InternalError, "the backend is gone");
  },
  confirmDelete: ({ filename }) => text(`kept ${filename}`),
  multiInput: () => text("two answers"),
  testToolWithTask: () => text("Hello, task!"),
};

serve(SERVER, registerTools, handlers, serveStdio);
