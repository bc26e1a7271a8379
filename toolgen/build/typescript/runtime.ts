/**
 * The runtime of a module toolgen generated: the spec set's tools on the official SDK's
 * `McpServer` (listing, validation, results) and the typed client's calls. Every generated
 * module carries the same copy; it reads only the constants `index.ts` hands it.
 */
import { fromJsonSchema, PROTOCOL_VERSION_META_KEY, ProtocolError } from "@modelcontextprotocol/server";
import type {
  CallToolResult,
  ContentBlock,
  ListToolsResult,
  McpServer,
  ServerContext,
  StandardSchemaWithJSON,
  ToolAnnotations,
} from "@modelcontextprotocol/server";
import type { Client as SdkClient } from "@modelcontextprotocol/client";

/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object (a JSON Schema document, a tool definition). */
export type JsonObject = { [key: string]: JsonValue };

/** A tool's input and output JSON Schemas, as the build's `schemas/` holds them. */
export interface ToolSchemas {
  readonly input: JsonObject;
  readonly output?: JsonObject;
}

/** One tool as the runtime needs it: its MCP name, the `Handlers` method and its schemas. */
export interface ToolEntry {
  readonly name: string;
  readonly method: string;
  readonly schemas: ToolSchemas;
}

/** A `tools/list` result body per protocol revision, exactly as the spec defines it. */
export type Listings = Readonly<Record<string, { readonly tools: readonly JsonObject[]; readonly [key: string]: unknown }>>;

/** What the handler of a tool without output schema returns: text, content blocks, or nothing. */
export type ToolContent = string | ContentBlock[] | undefined;

/** Throw in a handler to fail a call with a message meant for the model (`isError`). Any other
 * error answers a generic message and is logged to stderr only: internals never reach clients. */
export class ToolError extends Error {
  override name = "ToolError";
}

/** A tool answered `isError` (raised by the typed client). */
export class ToolCallError extends Error {
  override name = "ToolCallError";
  constructor(
    readonly tool: string,
    readonly text: string,
    readonly result: CallToolResult,
  ) {
    super(`tool ${JSON.stringify(tool)} failed: ${text}`);
  }
}

/** One way the server's tools differ from the spec: a tool it does not list (`missing`) or lists
 * twice (`name`), a field, or `safety` (the spec says safe, the server may destroy: not called). */
export interface Drift {
  readonly tool: string;
  readonly field: string;
  readonly message: string;
}

/** The server's tools differ from the spec (raised with `drift: "error"`). */
export class DriftError extends Error {
  override name = "DriftError";
  constructor(readonly drift: readonly Drift[]) {
    super(describe(drift));
  }
}

/** At the first call, a server whose tools differ from the spec: throw, warn, or say nothing. */
export type DriftPolicy = "error" | "warn" | "ignore";

const WRAPPED_META_KEY = "dev.toolgen/wrappedOutput";
const COMPARED = ["title", "description", "inputSchema", "outputSchema", "annotations", "_meta"];

// -- the server ------------------------------------------------------------------------------

/** Register every tool on `server` and answer `tools/list` with the spec's own definitions for
 * the negotiated revision. Arguments are checked by the SDK (`fromJsonSchema`, its AJV validator)
 * against the input schema; results against the output schema here, before they are sent. */
export function register(
  server: McpServer,
  tools: readonly ToolEntry[],
  listings: Listings,
  handlers: object,
): void {
  const methods = handlers as Record<string, unknown>;
  const latest = definitions(listings, "9999");
  for (const tool of tools) {
    const handler = methods[tool.method];
    if (typeof handler !== "function") {
      throw new TypeError(`registerTools: the handlers have no method ${tool.method} (tool ${tool.name})`);
    }
    const listed = latest.get(tool.name) ?? {};
    const about: { title?: string; description?: string; annotations?: ToolAnnotations } = {};
    if (typeof listed["title"] === "string") about.title = listed["title"];
    if (typeof listed["description"] === "string") about.description = listed["description"];
    if (listed["annotations"] !== undefined) about.annotations = listed["annotations"] as ToolAnnotations;
    const output = tool.schemas.output === undefined ? undefined : validator(tool.schemas.output);
    server.registerTool(
      tool.name,
      { ...about, inputSchema: validator(tool.schemas.input) },
      async (args: unknown, context: ServerContext): Promise<CallToolResult> => {
        let value: unknown;
        try {
          value = await (handler as (input: unknown, context: ServerContext) => unknown).call(handlers, args, context);
        } catch (error) {
          return failure(tool.name, error);
        }
        const definition = definitions(listings, revision(server, context)).get(tool.name) ?? {};
        return output === undefined ? unstructured(value) : structured(tool.name, output, value, definition);
      },
    );
  }
  server.server.setRequestHandler(
    "tools/list",
    (_request, context) => pick(listings, revision(server, context)) as unknown as ListToolsResult,
  );
}

/** The revision a request was made in: its own (2026-07-28 on), else the session's. */
function revision(server: McpServer, context: ServerContext): string {
  const envelope = context.mcpReq.envelope as Record<string, unknown> | undefined;
  const asked = envelope?.[PROTOCOL_VERSION_META_KEY];
  // The session's revision: what `initialize` negotiated (2025 era).
  return typeof asked === "string" ? asked : (server.server.getNegotiatedProtocolVersion() ?? "");
}

/** The listing of the latest revision at or before `revision` (the earliest for older ones). */
function pick(listings: Listings, revision: string): Listings[string] {
  const known = Object.keys(listings).sort();
  const chosen = known.filter((r) => r <= revision).pop() ?? known[0] ?? "";
  return listings[chosen] ?? { tools: [] };
}

const cache = new WeakMap<Listings, Map<string, Map<string, JsonObject>>>();

/** Tool name → definition in the listing `pick` chooses, kept per revision asked for (the
 * SDK serves only the few revisions it knows; the cache stops growing at 16 anyway). */
function definitions(listings: Listings, revision: string): Map<string, JsonObject> {
  let known = cache.get(listings);
  if (known === undefined) cache.set(listings, (known = new Map()));
  let found = known.get(revision);
  if (found === undefined) {
    found = new Map(pick(listings, revision).tools.map((tool) => [String(tool["name"]), tool]));
    if (known.size < 16) known.set(revision, found);
  }
  return found;
}

/** A JSON Schema as the SDK takes one, checked by the SDK's own validator (AJV, JSON Schema
 * 2020-12). `format` is an annotation, as JSON Schema 2020-12 and toolgen's Python runtime have
 * it: the schema the validator compiles leaves it out; the listed schema keeps it. */
function validator(schema: JsonObject): StandardSchemaWithJSON<JsonValue> {
  return fromJsonSchema<JsonValue>(withoutFormats(schema) as JsonObject);
}

const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples"]);
const NAME_MAP_KEYWORDS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/** `schema` without its `format` keywords (a property called `format` stays). */
function withoutFormats(schema: JsonValue): JsonValue {
  if (Array.isArray(schema)) return schema.map(withoutFormats);
  if (schema === null || typeof schema !== "object") return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "format") continue;
    if (DATA_KEYWORDS.has(key)) out[key] = value;
    else if (NAME_MAP_KEYWORDS.has(key) && value !== null && typeof value === "object" && !Array.isArray(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, withoutFormats(sub)]));
    } else out[key] = withoutFormats(value);
  }
  return out;
}

/** The result of a tool with an output schema: `structuredContent` (wrapped as `{"result": ...}`
 * where the revision's definition declares it) and its JSON as text (a string as itself);
 * before 2025-06-18, the text alone. A value the schema refuses is never sent as a success:
 * the validator sees what JSON will carry (a member that is `undefined` is absent; `NaN`, a
 * `Date` or an `undefined` array element are refused, not turned into `null` or a string). */
function structured(
  tool: string,
  output: StandardSchemaWithJSON<JsonValue>,
  value: unknown,
  definition: JsonObject,
): CallToolResult {
  const checked = value === undefined ? undefined : output["~standard"].validate(value);
  if (checked === undefined || checked instanceof Promise || checked.issues !== undefined) {
    const issues = checked === undefined || checked instanceof Promise ? [{ message: "no value" }] : checked.issues;
    console.error(`toolgen: tool ${JSON.stringify(tool)} returned a result its output schema refuses:`, issues.map((i) => i.message).join("; "));
    return errorResult(`Tool '${tool}' produced a result that does not match its output schema; the server logged the details`);
  }
  const meta = definition["_meta"] as JsonObject | undefined;
  const wrapped = definition["outputSchema"] !== undefined && meta?.[WRAPPED_META_KEY] === "result";
  const structuredContent = wrapped ? { result: value } : value;
  const text = typeof value === "string" ? value : JSON.stringify(structuredContent);
  if (definition["outputSchema"] === undefined) return { content: [{ type: "text", text }], isError: false };
  return { content: [{ type: "text", text }], structuredContent, isError: false };
}

/** The result of a tool without output schema: a string as text, blocks as they are, nothing as
 * no content, anything else as its JSON. */
function unstructured(value: unknown): CallToolResult {
  if (value === undefined || value === null) return { content: [], isError: false };
  if (typeof value === "string") return { content: [{ type: "text", text: value }], isError: false };
  if (Array.isArray(value)) return { content: value as ContentBlock[], isError: false };
  return { content: [{ type: "text", text: JSON.stringify(value) }], isError: false };
}

/** A handler's error as a result: a `ToolError`'s message, else a generic one (the error goes
 * to stderr). The SDK's `ProtocolError` goes to the SDK, which decides. */
function failure(tool: string, error: unknown): CallToolResult {
  if (error instanceof ProtocolError) throw error;
  if (error instanceof ToolError) return errorResult(error.message || `Tool '${tool}' failed`);
  console.error(`toolgen: tool ${JSON.stringify(tool)} raised:`, error);
  return errorResult(`Tool '${tool}' failed with an internal error; the server logged the details`);
}

function errorResult(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

// -- the client ------------------------------------------------------------------------------

/** Calls through a connected SDK `Client`, checked against the spec's listings. */
export class ToolClient {
  drift: Drift[] | undefined = undefined;

  constructor(
    readonly sdk: SdkClient,
    private readonly listings: Listings,
    private readonly policy: DriftPolicy = "warn",
  ) {}

  /** Compare the server's `tools/list` with the spec's definitions for the negotiated revision. */
  async checkDrift(): Promise<Drift[]> {
    const listed = (await this.sdk.listTools()).tools as unknown as JsonObject[];
    this.drift = compare([...this.expected().values()], listed);
    if (this.drift.length > 0 && this.policy === "error") throw new DriftError(this.drift);
    if (this.drift.length > 0 && this.policy === "warn") console.warn(describe(this.drift));
    return this.drift;
  }

  /** Call `tool`; `isError` throws `ToolCallError`. The SDK's result (tools without output). */
  async result(tool: string, input: object): Promise<CallToolResult> {
    if (this.drift === undefined) await this.checkDrift();
    const unsafe = (this.drift ?? []).filter((drift) => drift.tool === tool && drift.field === "safety");
    if (unsafe.length > 0) throw new DriftError(unsafe);
    const result = await this.sdk.callTool({ name: tool, arguments: input as Record<string, unknown> });
    if (result.isError) throw new ToolCallError(tool, textOf(result), result);
    return result;
  }

  /** Call `tool`: its structured value, unwrapped where the revision wraps it (before
   * 2025-06-18, read from the text: a string output is the text itself). */
  async value(tool: string, input: object, stringOutput: boolean): Promise<unknown> {
    const result = await this.result(tool, input);
    const definition = this.expected().get(tool) ?? {};
    if (definition["outputSchema"] === undefined) {
      const body = textOf(result);
      return stringOutput ? body : (JSON.parse(body) as unknown);
    }
    const meta = definition["_meta"] as JsonObject | undefined;
    const value = result.structuredContent;
    if (meta?.[WRAPPED_META_KEY] === "result" && value !== null && typeof value === "object" && "result" in value) {
      return (value as { result: unknown }).result;
    }
    return value;
  }

  private expected(): Map<string, JsonObject> {
    return definitions(this.listings, this.sdk.getNegotiatedProtocolVersion() ?? "");
  }
}

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/** How the `listed` definitions differ from the `expected` ones: the fields a client depends on
 * (`_meta`: only the keys the spec declares), each entry of a tool listed more than once, and
 * `safety`: the spec calls the tool safe, some entry hints it may destroy data (never called).
 * Tools the server lists beyond the spec are not drift. */
function compare(expected: readonly JsonObject[], listed: readonly JsonObject[]): Drift[] {
  const byName = new Map<string, JsonObject[]>();
  for (const tool of listed) byName.set(String(tool["name"]), [...(byName.get(String(tool["name"])) ?? []), tool]);
  const found: Drift[] = [];
  for (const spec of expected) {
    const tool = String(spec["name"]);
    const entries = byName.get(tool) ?? [];
    if (entries.length === 0) {
      found.push({ tool, field: "missing", message: "the server does not list this tool" });
      continue;
    }
    if (entries.length > 1) {
      found.push({ tool, field: "name", message: `the server lists this tool ${entries.length} times` });
    }
    for (const served of entries) found.push(...fields(tool, spec, served));
    if (!mayDestroy(spec["annotations"]) && mayDestroy(...entries.map((served) => served["annotations"]))) {
      found.push({ tool, field: "safety", message: UNSAFE });
    }
  }
  return found;
}

const UNSAFE = "the spec says it is safe to call, the server hints it may destroy data: the client does not call it";

function fields(tool: string, spec: JsonObject, served: JsonObject): Drift[] {
  const found: Drift[] = [];
  for (const field of COMPARED) {
    const want = spec[field];
    let got: JsonValue | undefined = served[field];
    if (field === "_meta" && got !== undefined && got !== null && typeof got === "object") {
      const declared = (want ?? {}) as JsonObject;
      const kept = Object.entries(got).filter(([key]) => key in declared);
      got = kept.length > 0 ? Object.fromEntries(kept) : undefined;
    }
    if (!same(want, got)) found.push({ tool, field, message: difference(field, want, got) });
  }
  return found;
}

/** Whether a tool may destroy data by any of these `annotations` (the spec's, each listing
 * entry's): safe only by `readOnlyHint: true` or `destructiveHint: false` as booleans; anything
 * else reads as the MCP default, destructive. The rule of `toolgen call` and `toolgen verify`. */
function mayDestroy(...annotations: (JsonValue | undefined)[]): boolean {
  return annotations.some(
    (hints) =>
      hints === undefined ||
      hints === null ||
      typeof hints !== "object" ||
      Array.isArray(hints) ||
      (hints["readOnlyHint"] !== true && hints["destructiveHint"] !== false),
  );
}

function difference(field: string, want: JsonValue | undefined, got: JsonValue | undefined): string {
  if (got === undefined) return `\`${field}\` is missing (the spec declares one)`;
  if (want === undefined) return `\`${field}\` is declared by the server, not by the spec`;
  return `\`${field}\` differs from the spec`;
}

function describe(drift: readonly Drift[]): string {
  const lines = drift.map((d) => `${d.tool}: ${d.message}`).join("; ");
  return `the server's tools differ from the spec (${drift.length}): ${lines}`;
}

/** Whether two JSON values are equal (object key order aside). */
function same(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => same(item, b[i]));
  }
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => key in b && same(a[key], b[key]));
}
