import type { CallToolResult } from "@modelcontextprotocol/client";
import { Client } from "./conformance/index.js";
import { connect, report } from "./connect.js";

const c = new Client(await connect(), { drift: "error" });
const calls: Record<string, () => Promise<CallToolResult>> = {
  testSimpleText: () => c.testSimpleText(),
  testImageContent: () => c.testImageContent(),
  testAudioContent: () => c.testAudioContent(),
  testEmbeddedResource: () => c.testEmbeddedResource({}),
  testMultipleContentTypes: () => c.testMultipleContentTypes(),
  testToolWithLogging: () => c.testToolWithLogging(),
  testToolWithProgress: () => c.testToolWithProgress(),
  testErrorHandling: () => c.testErrorHandling(),
  testSampling: () => c.testSampling({ prompt: "Capital of France?" }),
  testElicitation: () => c.testElicitation({ message: "Your name?" }),
  testElicitationSep1034Defaults: () => c.testElicitationSep1034Defaults(),
  testElicitationSep1330Enums: () => c.testElicitationSep1330Enums(),
  testLoggingTool: () => c.testLoggingTool(),
  testParamHeader: () => c.testParamHeader({ region: "us-west1" }),
  jsonSchema202012Tool: () => c.jsonSchema202012Tool({ name: "Ada", contactMethod: "email", email: "ada@example.com" }),
  testInputRequiredResultElicitation: () => c.testInputRequiredResultElicitation(),
  testInputRequiredResultSampling: () => c.testInputRequiredResultSampling(),
  testInputRequiredResultListRoots: () => c.testInputRequiredResultListRoots(),
  testInputRequiredResultRequestState: () => c.testInputRequiredResultRequestState(),
  testInputRequiredResultMultipleInputs: () => c.testInputRequiredResultMultipleInputs(),
  testInputRequiredResultMultiRound: () => c.testInputRequiredResultMultiRound(),
  testInputRequiredResultTamperedState: () => c.testInputRequiredResultTamperedState(),
  testInputRequiredResultCapabilities: () => c.testInputRequiredResultCapabilities(),
  testStreamingElicitation: () => c.testStreamingElicitation(),
  testMissingCapability: () => c.testMissingCapability(),
  greet: () => c.greet({ name: "Ada" }),
  slowCompute: () => c.slowCompute({ seconds: 0, label: "fast" }),
  failingJob: () => c.failingJob(),
  protocolErrorJob: () => c.protocolErrorJob(),
  confirmDelete: () => c.confirmDelete({ filename: "a.txt" }),
  multiInput: () => c.multiInput(),
  testToolWithTask: () => c.testToolWithTask(),
};
await report(c.sdk, calls);
