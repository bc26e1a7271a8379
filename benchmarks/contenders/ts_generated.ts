// The generated TypeScript module of the serving benchmark's 3 tools, served as the docs' recipe
// serves them: registerTools on the SDK's McpServer, the module's serveStdio
// (benchmarks/typescript_bench.py).
import { McpServer } from "@modelcontextprotocol/server";
import { registerTools, SERVER, serveStdio, type Handlers } from "./bench_serve/index.js";

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

serveStdio(() => {
  const server = new McpServer({ name: SERVER.name, version: SERVER.version });
  registerTools(server, handlers);
  return server;
});
