// The generated TypeScript module of the serving benchmark's 3 tools, served by the SDK's
// McpServer over stdio through registerTools (benchmarks/typescript_bench.py).
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { registerTools, SERVER, type Handlers } from "./bench_serve/index.js";

const handlers: Handlers = {
  getIssue: ({ owner, repo, issue_number }) => ({
    number: issue_number,
    title: `${owner}/${repo}#${issue_number}`,
    state: "open",
    url: `https://github.com/${owner}/${repo}/issues/${issue_number}`,
    labels: ["bug"],
  }),
  actionsGet: () => [],
  actionsList: () => ({ total_count: 0, items: [] }),
};

const server = new McpServer({ name: SERVER.name, version: SERVER.version });
registerTools(server, handlers);
await server.connect(new StdioServerTransport());
