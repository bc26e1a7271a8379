/**
 * The runtime of a module toolgen generated: the spec set's tools on the official SDK's
 * `McpServer` (registration, listing, validation, results), a stdio entry point that answers
 * what the SDK's own transport leaves unanswered, and the typed client's calls. Every generated
 * module carries the same copy; it reads only the constants `index.ts` hands it.
 */
import { stdin, stdout } from "node:process";
import type { Readable, Writable } from "node:stream";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import {
  fromJsonSchema,
  isSpecType,
  parseJSONRPCMessage,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
} from "@modelcontextprotocol/server";
import type {
  CallToolResult,
  ContentBlock,
  JSONRPCMessage,
  jsonSchemaValidator,
  ListToolsResult,
  McpServer,
  McpServerFactory,
  RegisteredTool,
  RequestId,
  ServerContext,
  Tool,
  ToolAnnotations,
  Transport,
} from "@modelcontextprotocol/server";
import { serveStdio as sdkServeStdio } from "@modelcontextprotocol/server/stdio";
import type { ServeStdioOptions, StdioServerHandle } from "@modelcontextprotocol/server/stdio";
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

/** A tool's result does not match the spec's output schema (raised by the typed client, which
 * never hands on a value of the wrong type). */
export class ToolResultError extends Error {
  override name = "ToolResultError";
  constructor(
    readonly tool: string,
    readonly problem: string,
    readonly result: CallToolResult,
  ) {
    super(`tool ${JSON.stringify(tool)} returned a result its output schema refuses: ${problem}`);
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
const SCHEMA_FIELDS = new Set(["inputSchema", "outputSchema"]);

// -- validation ------------------------------------------------------------------------------

/** The one JSON Schema 2020-12 validator of server and client (AJV, the engine the SDK uses).
 * Two options differ from the SDK's default: `format` is an annotation, as JSON Schema 2020-12
 * and toolgen's Python runtime have it; and only a value's own properties count, so a property
 * named `toString` or `constructor` is absent when the value does not have it. AJV keeps what
 * it compiled per schema object. */
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, ownProperties: true });

/** `ajv` as the SDK takes a validator (`fromJsonSchema`). */
const engine: jsonSchemaValidator = {
  getValidator<T>(schema: JsonObject) {
    const validate = ajv.compile<T>(schema);
    return (input: unknown) =>
      validate(input)
        ? { valid: true, data: input, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: ajv.errorsText(validate.errors) };
  },
};

// -- the server ------------------------------------------------------------------------------

/** The spec set's tools on one `McpServer`: `register` each with its handler through the SDK's
 * `registerTool`, then `listTools`. */
export class SpecTools<Name extends string> {
  constructor(
    private readonly server: McpServer,
    private readonly schemas: Readonly<Record<Name, ToolSchemas>>,
    private readonly listings: Listings,
  ) {}

  /** Register tool `name` with `handler`, its input checked by the validator first and its
   * result checked against the output schema before it is sent; the SDK's handle to it. A name
   * every JavaScript object has (`toString`, `constructor`, ...) is one the SDK's registry would
   * take for a tool it already holds: such a tool is registered under another name and renamed. */
  register<Input>(name: Name, handler: (input: Input, context: ServerContext) => unknown): RegisteredTool {
    const schemas = this.schemas[name];
    const listed = definitions(this.listings, "9999").get(name) ?? {};
    const about: { title?: string; description?: string; annotations?: ToolAnnotations } = {};
    if (typeof listed["title"] === "string") about.title = listed["title"];
    if (typeof listed["description"] === "string") about.description = listed["description"];
    if (isSpecType.ToolAnnotations(listed["annotations"])) about.annotations = listed["annotations"];
    const output = schemas.output === undefined ? undefined : ajv.compile(schemas.output);
    const inherited = name in Object.prototype;
    const tool = this.server.registerTool(
      inherited ? `toolgen-registering.${name}` : name,
      { ...about, inputSchema: fromJsonSchema<Input>(schemas.input, engine) },
      async (input: Input, context: ServerContext): Promise<CallToolResult> => {
        let value: unknown;
        try {
          value = await handler(input, context);
        } catch (error) {
          return failure(name, error);
        }
        if (output === undefined) return unstructured(value);
        const definition = definitions(this.listings, revision(this.server, context)).get(name) ?? {};
        return structured(name, output, value, definition);
      },
    );
    if (inherited) tool.update({ name });
    return tool;
  }

  /** Answer `tools/list` with the spec's definitions for the revision the request was made in,
   * then every other tool registered on the server, as the SDK lists it. A spec tool is listed
   * while the SDK would list it (not disabled, removed or renamed). The SDK lists one definition
   * for every revision, its input schema rewritten (`type: "object"` added and put first),
   * without `execution`, and its own way of wrapping a non-object output: it cannot list the
   * spec's definitions as they are, so this hook takes over, asking the SDK's own listing (its
   * registered handler, which it offers no public way to reach) for the rest. */
  listTools(): void {
    const sdk = this.server.server["_getRequestHandler"]("tools/list");
    if (sdk === undefined) return; // nothing registered: nothing to list
    const spec = new Set(Object.keys(this.schemas));
    this.server.server.setRequestHandler("tools/list", async (request, context) => {
      const theirs = await sdk({ jsonrpc: "2.0", id: context.mcpReq.id, ...request }, context);
      const others: Tool[] = [];
      const live = new Set<string>();
      for (const tool of Array.isArray(theirs["tools"]) ? theirs["tools"] : []) {
        const name = isObject(tool) ? tool["name"] : undefined;
        if (typeof name === "string" && spec.has(name)) live.add(name);
        else if (isSpecType.Tool(tool)) others.push(tool);
      }
      const listing = typedListing(this.listings, revision(this.server, context));
      return { ...listing, tools: [...listing.tools.filter((tool) => live.has(tool.name)), ...others] };
    });
  }
}

/** The revision a request was made in: its own (2026-07-28 on), else the session's. */
function revision(server: McpServer, context: ServerContext): string {
  const envelope = context.mcpReq.envelope;
  const asked = isObject(envelope) ? envelope[PROTOCOL_VERSION_META_KEY] : undefined;
  // The session's revision: what `initialize` negotiated (2025 era).
  return typeof asked === "string" ? asked : (server.server.getNegotiatedProtocolVersion() ?? "");
}

/** The listing of the latest revision at or before `revision` (the earliest for older ones). */
function pick(listings: Listings, revision: string): Listings[string] {
  const known = Object.keys(listings).sort();
  const chosen = known.filter((r) => r <= revision).pop() ?? known[0] ?? "";
  return listings[chosen] ?? { tools: [] };
}

interface Picked {
  readonly byName: Map<string, JsonObject>;
  typed?: ListToolsResult;
  /** Each definition without its output schema, as the client hands it to the SDK's. */
  called?: Map<string, Tool>;
}
const cache = new WeakMap<Listings, Map<string, Picked>>();

/** The listing `pick` chooses, kept per revision asked for (the SDK serves only the few
 * revisions it knows; the cache stops growing at 16 anyway). */
function picked(listings: Listings, revision: string): Picked {
  let known = cache.get(listings);
  if (known === undefined) cache.set(listings, (known = new Map()));
  let found = known.get(revision);
  if (found === undefined) {
    found = { byName: new Map(pick(listings, revision).tools.map((tool) => [String(tool["name"]), tool])) };
    if (known.size < 16) known.set(revision, found);
  }
  return found;
}

/** Tool name → definition in the listing `pick` chooses. */
function definitions(listings: Listings, revision: string): Map<string, JsonObject> {
  return picked(listings, revision).byName;
}

/** The listing `pick` chooses as the SDK types a `tools/list` result (checked once). */
function typedListing(listings: Listings, revision: string): ListToolsResult {
  const found = picked(listings, revision);
  if (found.typed === undefined) {
    const listing = pick(listings, revision);
    if (!isSpecType.ListToolsResult(listing)) throw new Error("toolgen: a listing of the spec is not a tools/list result");
    found.typed = listing;
  }
  return found.typed;
}

/** The result of a tool with an output schema: `structuredContent` (wrapped as `{"result": ...}`
 * where the revision's definition declares it) and its JSON as text (a string as itself);
 * before 2025-06-18, the text alone. A value the schema refuses is never sent as a success:
 * the validator sees what JSON will carry (a member that is `undefined` is absent; `NaN`, a
 * `Date` or an `undefined` array element are refused, not turned into `null` or a string). */
function structured(tool: string, output: ValidateFunction, value: unknown, definition: JsonObject): CallToolResult {
  if (value === undefined || !output(value)) {
    const problem = value === undefined ? "no value" : ajv.errorsText(output.errors);
    console.error(`toolgen: tool ${JSON.stringify(tool)} returned a result its output schema refuses: ${problem}`);
    return errorResult(`Tool '${tool}' produced a result that does not match its output schema; the server logged the details`);
  }
  const meta = definition["_meta"];
  const wrapped = isObject(meta) && meta[WRAPPED_META_KEY] === "result";
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
  if (Array.isArray(value) && value.every((block) => isSpecType.ContentBlock(block))) return { content: value, isError: false };
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

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

// -- stdio -----------------------------------------------------------------------------------

/** Serve MCP over stdin and stdout from `factory` (one `McpServer` per connection), as the SDK's
 * `serveStdio` does, over a transport that also answers what the SDK's own leaves unanswered:
 * a line that is not JSON gets error -32700 with `id: null`, a line that is not a JSON-RPC
 * request gets -32600, and a batch is answered with one array in a 2025-03-26 session (the one
 * revision with batches) and refused with -32600 in any other. Notifications are never answered. */
export function serveStdio(factory: McpServerFactory, options: Omit<ServeStdioOptions, "transport"> = {}): StdioServerHandle {
  return sdkServeStdio(factory, { ...options, transport: new StdioTransport(stdin, stdout) });
}

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const BATCH_REVISION = "2025-03-26";

/** The replies a batch still waits for, and those it has. */
interface Batch {
  readonly waiting: Set<RequestId>;
  readonly replies: unknown[];
}

/** JSON-RPC over newline-delimited JSON: one message (or batch) a line, at most
 * `STDIO_DEFAULT_MAX_BUFFER_SIZE` bytes (a longer line is dropped and answered with -32600). */
class StdioTransport implements Transport {
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  onmessage?: Transport["onmessage"];
  #revision: string | undefined;
  #parts: Buffer[] = [];
  #size = 0;
  #skipping = false;
  #closed = false;
  readonly #batches = new Map<RequestId, Batch>();

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
  ) {}

  async start(): Promise<void> {
    if (this.input.readableEnded || this.input.destroyed) setImmediate(this.#end);
    this.input.on("data", this.#read);
    this.input.on("error", this.#fail);
    this.input.on("end", this.#end);
    this.input.on("close", this.#end);
    this.output.on("error", this.#fail);
  }

  /** The revision `initialize` negotiated (the SDK tells its transport). */
  setProtocolVersion(version: string): void {
    this.#revision = version;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const id = "method" in message ? undefined : message.id;
    const batch = id === undefined ? undefined : this.#batches.get(id);
    if (batch === undefined || id === undefined) return this.#write(message);
    this.#batches.delete(id);
    batch.waiting.delete(id);
    batch.replies.push(message);
    if (batch.waiting.size === 0) await this.#write(batch.replies);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.input.off("data", this.#read);
    this.input.off("end", this.#end);
    this.input.off("close", this.#end);
    this.input.pause();
    this.onclose?.();
  }

  readonly #end = (): void => void this.close();

  readonly #fail = (error: Error): void => {
    this.onerror?.(error);
    void this.close();
  };

  /** Cut `chunk` into lines (a partial one is kept for the next chunk). */
  readonly #read = (chunk: Buffer): void => {
    let start = 0;
    for (let end = chunk.indexOf(10); end >= 0; end = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, end);
      start = end + 1;
      if (this.#skipping) {
        this.#skipping = false; // the end of a line already refused
        continue;
      }
      const line = this.#parts.length === 0 ? piece : Buffer.concat([...this.#parts, piece]);
      this.#parts = [];
      this.#size = 0;
      if (line.length > STDIO_DEFAULT_MAX_BUFFER_SIZE) this.#tooLong();
      else this.#line(line.toString("utf8"));
    }
    if (start < chunk.length && !this.#skipping) {
      this.#size += chunk.length - start;
      if (this.#size > STDIO_DEFAULT_MAX_BUFFER_SIZE) {
        this.#parts = [];
        this.#size = 0;
        this.#skipping = true;
        this.#tooLong();
      } else this.#parts.push(chunk.subarray(start));
    }
  };

  #tooLong(): void {
    void this.#write(errorReply(null, INVALID_REQUEST, `Message too large: the limit is ${STDIO_DEFAULT_MAX_BUFFER_SIZE} bytes per line`));
  }

  #line(text: string): void {
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      void this.#write(errorReply(null, PARSE_ERROR, "Parse error: not valid JSON"));
      return;
    }
    if (!Array.isArray(value)) {
      const refused: unknown[] = [];
      const message = this.#message(value, refused);
      if (message !== undefined) this.onmessage?.(message);
      for (const reply of refused) void this.#write(reply);
    } else if (this.#revision !== BATCH_REVISION || value.length === 0) {
      const why = "JSON-RPC batches are only accepted in 2025-03-26 sessions: send one message at a time";
      void this.#write(errorReply(null, INVALID_REQUEST, why));
    } else this.#batch(value);
  }

  /** A 2025-03-26 batch: every member delivered, one array answering its requests. */
  #batch(items: unknown[]): void {
    const batch: Batch = { waiting: new Set(), replies: [] };
    const messages: JSONRPCMessage[] = [];
    for (const item of items) {
      if (isObject(item) && item["method"] === "initialize" && isRequestId(item["id"])) {
        batch.replies.push(errorReply(item["id"], INVALID_REQUEST, "initialize must not be part of a batch"));
        continue;
      }
      const message = this.#message(item, batch.replies);
      if (message === undefined) continue;
      if ("method" in message && "id" in message) {
        batch.waiting.add(message.id);
        this.#batches.set(message.id, batch);
      }
      messages.push(message);
    }
    for (const message of messages) this.onmessage?.(message);
    if (batch.waiting.size === 0 && batch.replies.length > 0) void this.#write(batch.replies);
  }

  /** `value` as a JSON-RPC message, or undefined: a malformed request (it has an id) is
   * refused into `replies`; anything else malformed is only reported. */
  #message(value: unknown, replies: unknown[]): JSONRPCMessage | undefined {
    try {
      return parseJSONRPCMessage(value);
    } catch {
      if (!isObject(value)) replies.push(errorReply(null, INVALID_REQUEST, "A message must be a JSON-RPC object"));
      else if ("id" in value && !("result" in value || "error" in value)) {
        const id = value["id"];
        replies.push(errorReply(isRequestId(id) ? id : null, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 request"));
      } else this.onerror?.(new Error("toolgen: dropped a malformed JSON-RPC notification or response"));
      return undefined;
    }
  }

  #write(value: unknown): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.output.write(`${JSON.stringify(value)}\n`, (error) => (error ? reject(error) : resolve()));
    });
  }
}

function errorReply(id: RequestId | null, code: number, message: string): JsonObject {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isInteger(value));
}

// -- the client ------------------------------------------------------------------------------

/** Pages of one `tools/list` read before giving up (toolgen's own bound). */
const MAX_PAGES = 1000;

/** Calls through a connected SDK `Client`, checked against the spec's listings and schemas. */
export class ToolClient {
  drift: Drift[] | undefined = undefined;

  constructor(
    readonly sdk: SdkClient,
    private readonly schemas: Readonly<Record<string, ToolSchemas>>,
    private readonly listings: Listings,
    private readonly policy: DriftPolicy = "warn",
  ) {}

  /** Compare the server's `tools/list` (every page) with the spec's definitions for the
   * negotiated revision. */
  async checkDrift(): Promise<Drift[]> {
    const listed: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.sdk.listTools(cursor === undefined ? undefined : { cursor });
      listed.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    this.drift = compare([...this.expected().values()], listed);
    if (this.drift.length > 0 && this.policy === "error") throw new DriftError(this.drift);
    if (this.drift.length > 0 && this.policy === "warn") console.warn(describe(this.drift));
    return this.drift;
  }

  /** Call `tool`; `isError` throws `ToolCallError`. The SDK's result (tools without output).
   * The SDK client is handed the spec's definition of the tool, without its output schema: it
   * sends the call as the spec defines it, and `value` checks the result, once, against the
   * spec's output schema (the SDK's own check would read inherited members as present).
   * `input` is typed by the calling method, with the spec's types (which may be wider than
   * its schema): a value that is no object throws `TypeError` before anything is sent. */
  async result(tool: string, input: unknown): Promise<CallToolResult> {
    if (!isObject(input)) throw new TypeError(`the input of tool ${tool} is not a JSON object`);
    if (this.drift === undefined) await this.checkDrift();
    const unsafe = (this.drift ?? []).filter((drift) => drift.tool === tool && drift.field === "safety");
    if (unsafe.length > 0) throw new DriftError(unsafe);
    const toolDefinition = this.called().get(tool);
    const options = toolDefinition === undefined ? undefined : { toolDefinition };
    const result = await this.sdk.callTool({ name: tool, arguments: input }, options);
    if (result.isError) throw new ToolCallError(tool, textOf(result), result);
    return result;
  }

  /** Call `tool`: its structured value (unwrapped where the revision wraps it; before
   * 2025-06-18, read from the text: a string output is the text itself), checked against the
   * spec's output schema (`ToolResultError` when it does not match). */
  async value<Output>(tool: string, input: unknown): Promise<Output> {
    const result = await this.result(tool, input);
    const schema = this.schemas[tool]?.output ?? {};
    const definition = this.expected().get(tool) ?? {};
    let value: unknown = result.structuredContent;
    if (definition["outputSchema"] === undefined) {
      value = schema["type"] === "string" ? textOf(result) : parsed(textOf(result));
    } else if (isObject(definition["_meta"]) && definition["_meta"][WRAPPED_META_KEY] === "result" && isObject(value)) {
      value = value["result"];
    }
    const validate = ajv.compile<Output>(schema);
    if (!validate(value)) throw new ToolResultError(tool, ajv.errorsText(validate.errors), result);
    return value;
  }

  private expected(): Map<string, JsonObject> {
    return definitions(this.listings, this.sdk.getNegotiatedProtocolVersion() ?? "");
  }

  private called(): Map<string, Tool> {
    const revision = this.sdk.getNegotiatedProtocolVersion() ?? "";
    const found = picked(this.listings, revision);
    if (found.called === undefined) {
      found.called = new Map();
      for (const { outputSchema, ...tool } of typedListing(this.listings, revision).tools) found.called.set(tool.name, tool);
    }
    return found.called;
  }
}

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/** `text` as JSON, or undefined when it is not (which no output schema accepts). */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

type Definition = Readonly<Record<string, unknown>>;

/** How the `listed` definitions differ from the `expected` ones, as toolgen's Python client
 * judges it: the fields a client depends on (`_meta`: only the keys the spec declares; schemas
 * with their `$ref`s inlined, so a definition inlined is the same), each entry of a tool listed
 * more than once, and `safety`: the spec calls the tool safe, some entry hints it may destroy
 * data (never called). Tools the server lists beyond the spec are not drift. */
function compare(expected: readonly Definition[], listed: readonly Definition[]): Drift[] {
  const byName = new Map<string, Definition[]>();
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

function fields(tool: string, spec: Definition, served: Definition): Drift[] {
  const found: Drift[] = [];
  for (const field of COMPARED) {
    let want = spec[field];
    let got = served[field];
    if (field === "_meta" && isObject(got)) {
      const declared = isObject(want) ? want : {};
      const kept = Object.entries(got).filter(([key]) => Object.hasOwn(declared, key));
      got = kept.length > 0 ? Object.fromEntries(kept) : undefined;
    }
    if (SCHEMA_FIELDS.has(field) && isObject(want) && isObject(got)) {
      want = inlineRefs(want);
      got = inlineRefs(got);
    }
    if (!same(want, got)) found.push({ tool, field, message: difference(field, want, got) });
  }
  return found;
}

/** Whether a tool may destroy data by any of these `annotations` (the spec's, each listing
 * entry's): safe only by `readOnlyHint: true` or `destructiveHint: false` as booleans; anything
 * else reads as the MCP default, destructive. The rule of `toolgen call` and `toolgen verify`. */
function mayDestroy(...annotations: unknown[]): boolean {
  return annotations.some(
    (hints) => !isObject(hints) || (hints["readOnlyHint"] !== true && hints["destructiveHint"] !== false),
  );
}

function difference(field: string, want: unknown, got: unknown): string {
  if (got === undefined) return `\`${field}\` is missing (the spec declares one)`;
  if (want === undefined) return `\`${field}\` is declared by the server, not by the spec`;
  return `\`${field}\` differs from the spec`;
}

function describe(drift: readonly Drift[]): string {
  const lines = drift.map((d) => `${d.tool}: ${d.message}`).join("; ");
  return `the server's tools differ from the spec (${drift.length}): ${lines}`;
}

/** Whether two JSON values are equal (object key order aside). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => same(item, b[i]));
  }
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && same(Reflect.get(a, key), Reflect.get(b, key)))
  );
}

// -- $ref inlining (toolgen's `inline_refs`, the same rule in every client) ------------------

const SINGLE = new Set([
  "additionalProperties", "items", "contains", "propertyNames", "not", "if", "then", "else",
  "unevaluatedItems", "unevaluatedProperties", "contentSchema", "additionalItems",
]);
const MAPPED = new Set(["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"]);
const LISTED = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const DEFS = ["$defs", "definitions"];
/** Keywords beside a `$ref` that may simply replace the target's own (no validation). */
const ANNOTATIONS = new Set(["title", "description", "default", "examples", "$comment", "deprecated"]);
const BASE_CHANGING = ["$id", "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef"];
const MAX_INLINED_SCHEMAS = 10_000;

type Schema = Readonly<Record<string, unknown>>;

/** The direct subschemas of `schema`, each with whether it sits under a `$defs` name. */
function subschemas(schema: unknown): [unknown, boolean][] {
  const found: [unknown, boolean][] = [];
  if (!isObject(schema)) return found;
  for (const [key, value] of Object.entries(schema)) {
    if (SINGLE.has(key)) found.push([value, false]);
    else if (MAPPED.has(key) && isObject(value)) {
      for (const [name, sub] of Object.entries(value)) found.push([sub, DEFS.includes(key) || DEFS.includes(name)]);
    } else if (LISTED.has(key) && Array.isArray(value)) for (const sub of value) found.push([sub, false]);
  }
  return found;
}

/** Every `$ref` below and including `schema` (not under a `$defs` name with `skipDefs`). */
function refsBelow(schema: unknown, skipDefs: boolean): Set<string> {
  const found = new Set<string>();
  const todo = [schema];
  while (todo.length > 0) {
    const node = todo.pop();
    if (isObject(node) && typeof node["$ref"] === "string") found.add(node["$ref"]);
    for (const [sub, underDefs] of subschemas(node)) if (!(skipDefs && underDefs)) todo.push(sub);
  }
  return found;
}

/** The tokens of a same-document JSON Pointer `ref` (`#/a/b~1c` → `["a", "b/c"]`), or
 * undefined for another document or an anchor. */
function pointerTokens(ref: string): string[] | undefined {
  if (!ref.startsWith("#")) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (fragment === "") return [];
  if (!fragment.startsWith("/")) return undefined;
  return fragment.slice(1).split("/").map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function follow(root: unknown, tokens: readonly string[]): unknown {
  let node = root;
  for (const token of tokens) {
    if (Array.isArray(node) && /^[0-9]+$/.test(token)) node = node[Number(token)];
    else if (isObject(node) && Object.hasOwn(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

class CannotInline extends Error {}

/** `schema` with every `$ref` that is not recursive replaced by its target (merged with the
 * keywords beside it); `$defs` keep only what a recursive one points into. `schema` itself when
 * it has no reference or cannot be inlined faithfully (a reference of another form, an `$id`
 * below the root, a kept reference into a nested `$defs`, or past `MAX_INLINED_SCHEMAS`). */
function inlineRefs(schema: Schema): unknown {
  const refs = refsBelow(schema, false);
  if (refs.size === 0) return schema;
  try {
    return new Inliner(schema, refs).run();
  } catch (error) {
    if (error instanceof CannotInline) return schema;
    throw error;
  }
}

class Inliner {
  readonly targets = new Map<string, unknown>();
  readonly recursive = new Set<string>();
  size = 0;

  constructor(
    readonly root: Schema,
    refs: Set<string>,
  ) {
    const todo: unknown[] = subschemas(root).map(([sub]) => sub);
    while (todo.length > 0) {
      const node = todo.pop();
      if (isObject(node) && BASE_CHANGING.some((key) => Object.hasOwn(node, key))) throw new CannotInline();
      todo.push(...subschemas(node).map(([sub]) => sub));
    }
    for (const ref of refs) {
      const tokens = pointerTokens(ref);
      const target = tokens === undefined ? undefined : follow(root, tokens);
      if (!isObject(target) && typeof target !== "boolean") throw new CannotInline();
      this.targets.set(ref, target);
    }
    const uses = new Map([...this.targets].map(([ref, target]) => [ref, refsBelow(target, true)]));
    for (const ref of refs) if (reaches(ref, uses)) this.recursive.add(ref);
  }

  run(): Schema {
    const out = this.expand(this.root);
    if (!isObject(out)) throw new CannotInline();
    const result: Record<string, unknown> = { ...out };
    const kept = new Map<string, Map<string, unknown>>();
    const todo: unknown[] = [result];
    for (let node = todo.pop(); node !== undefined; node = todo.pop()) {
      for (const ref of refsBelow(node, false)) {
        const tokens = pointerTokens(ref) ?? [];
        if (tokens.slice(2).some((token) => DEFS.includes(token))) throw new CannotInline();
        const [block, name] = tokens;
        if (block === undefined || name === undefined || !DEFS.includes(block)) continue;
        const names = kept.get(block) ?? new Map<string, unknown>();
        kept.set(block, names);
        if (!names.has(name)) {
          const expanded = this.expand(follow(this.root, [block, name]));
          names.set(name, expanded);
          todo.push(expanded);
        }
      }
    }
    for (const block of DEFS) {
      const names = kept.get(block);
      const written = this.root[block];
      if (names === undefined || names.size === 0 || !isObject(written)) continue;
      result[block] = Object.fromEntries(Object.keys(written).filter((n) => names.has(n)).map((n) => [n, names.get(n)]));
    }
    return result;
  }

  /** A copy of `node` with non-recursive references inlined and no `$defs`. */
  expand(node: unknown): unknown {
    if (++this.size > MAX_INLINED_SCHEMAS) throw new CannotInline();
    if (!isObject(node)) return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (DEFS.includes(key)) continue;
      if (SINGLE.has(key)) out[key] = this.expand(value);
      else if (MAPPED.has(key) && isObject(value)) {
        out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, this.expand(sub)]));
      } else if (LISTED.has(key) && Array.isArray(value)) out[key] = value.map((sub) => this.expand(sub));
      else out[key] = value;
    }
    const ref = out["$ref"];
    if (typeof ref !== "string" || this.recursive.has(ref)) return out;
    delete out["$ref"];
    return mergeRef(this.expand(this.targets.get(ref)), out);
  }
}

/** Whether following references from `start`'s target leads back to `start`. */
function reaches(start: string, uses: ReadonlyMap<string, ReadonlySet<string>>): boolean {
  const seen = new Set<string>();
  const todo = [...(uses.get(start) ?? [])];
  for (let ref = todo.pop(); ref !== undefined; ref = todo.pop()) {
    if (ref === start) return true;
    if (!seen.has(ref)) {
      seen.add(ref);
      todo.push(...(uses.get(ref) ?? []));
    }
  }
  return false;
}

/** A reference's `target` and the keywords beside it as one schema meaning both: merged when
 * they do not disagree (an annotation beside the reference wins), else the target under `allOf`. */
function mergeRef(target: unknown, siblings: Schema): unknown {
  if (Object.keys(siblings).length === 0) return target;
  if (typeof target === "boolean") return target ? siblings : false;
  if (!isObject(target) || Object.keys(target).length === 0) return siblings;
  const clash = Object.entries(siblings).some(
    ([key, value]) => Object.hasOwn(target, key) && !same(target[key], value) && !ANNOTATIONS.has(key),
  );
  if (!clash) return { ...target, ...siblings };
  const allOf = Array.isArray(siblings["allOf"]) ? siblings["allOf"] : [];
  return { ...siblings, allOf: [...allOf, target] };
}
