// The serving benchmark's 3 tools written by hand, as TypeScript SDK servers usually are:
// Zod shapes, registerTool, structuredContent and its JSON as text (typescript_bench.py).
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import * as z from "zod";

const Issue = z.object({
  number: z.number().int(),
  title: z.string(),
  state: z.enum(["open", "closed"]),
  url: z.string(),
  labels: z.array(z.string()),
}).strict();
const User = z.object({
  login: z.string(),
  id: z.number().int(),
  html_url: z.string().optional(),
  type: z.enum(["User", "Organization", "Bot"]).optional(),
}).strict();
const Label = z.object({
  name: z.string(),
  color: z.string().regex(/^[0-9a-fA-F]{6}$/).optional(),
  description: z.string().nullable().optional(),
}).strict();
const Run = {
  id: z.number().int(),
  node_id: z.string().optional(),
  html_url: z.string(),
  name: z.string().optional(),
  created_at: z.string().optional(),
  updated_at: z.string().nullable().optional(),
};

const server = new McpServer({ name: "bench_serve", version: "1.0.0" });
server.registerTool(
  "get_issue",
  {
    title: "Get an issue",
    description: "Return one issue of a repository by its number.",
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
    inputSchema: z.object({
      owner: z.string().min(1).describe("Repository owner."),
      repo: z.string().min(1).describe("Repository name."),
      issue_number: z.number().int().min(1).describe("Issue number."),
    }).strict(),
    outputSchema: Issue,
  },
  ({ owner, repo, issue_number }) => {
    const issue = {
      number: issue_number,
      title: `${owner}/${repo}#${issue_number}`,
      state: "open" as const,
      url: `https://github.com/${owner}/${repo}/issues/${issue_number}`,
      labels: ["bug"],
    };
    return { content: [{ type: "text", text: JSON.stringify(issue) }], structuredContent: issue };
  },
);
server.registerTool(
  "actions_get",
  {
    description: "Get details about specific GitHub Actions resources.",
    inputSchema: z.object({
      method: z.enum(["get_workflow", "get_workflow_run", "get_workflow_job", "download_workflow_run_artifact", "get_workflow_run_usage", "get_workflow_run_logs_url"]),
      owner: z.string(),
      repo: z.string(),
      resource_id: z.string(),
    }),
    outputSchema: z.array(z.object({ ...Run, user: User.optional() }).strict()),
  },
  () => ({ content: [{ type: "text", text: "[]" }], structuredContent: [] }),
);
server.registerTool(
  "actions_list",
  {
    description: "List GitHub Actions workflows in a repository.",
    inputSchema: z.object({
      method: z.enum(["list_workflows", "list_workflow_runs", "list_workflow_jobs", "list_workflow_run_artifacts"]),
      owner: z.string(),
      repo: z.string(),
      page: z.number().min(1).optional(),
      per_page: z.number().min(1).max(100).optional(),
      resource_id: z.string().optional(),
      workflow_jobs_filter: z.object({ filter: z.enum(["latest", "all"]).optional() }).optional(),
      workflow_runs_filter: z.object({
        actor: z.string().optional(),
        branch: z.string().optional(),
        event: z.string().optional(),
        status: z.enum(["queued", "in_progress", "completed", "requested", "waiting"]).optional(),
      }).optional(),
    }),
    outputSchema: z.object({
      total_count: z.number().int().min(0),
      incomplete_results: z.boolean().optional(),
      items: z.array(z.object({ ...Run, labels: z.array(Label).optional() }).strict()),
      next_cursor: z.string().nullable().optional(),
    }).strict(),
  },
  () => {
    const page = { total_count: 0, items: [] };
    return { content: [{ type: "text", text: JSON.stringify(page) }], structuredContent: page };
  },
);
await server.connect(new StdioServerTransport());
