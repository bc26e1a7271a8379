//! The runtime of a crate toolgen generated: the spec set's tools served on the official Rust
//! SDK (`rmcp`), checked against their JSON Schemas, and the typed client's calls. Every
//! generated crate carries the same copy; it reads only the [`Spec`] the crate hands it.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientRequest, ContentBlock,
    CustomResult, Implementation, InitializeResult, JsonObject, JsonRpcMessage, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerJsonRpcMessage,
    ServerResult, Tool,
};
use rmcp::service::{
    NotificationContext, Peer, RequestContext, RoleClient, RoleServer, RxJsonRpcMessage,
    ServerInitializeError, ServiceRole,
};
use rmcp::{ErrorData, ServerHandler, Service, ServiceError, ServiceExt};
use serde::de::{self, DeserializeOwned};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

const WRAPPED_META_KEY: &str = "dev.toolgen/wrappedOutput";
const WRAP_KEY: &str = "result";
/// Longest stdin line read as one message (the Python runtime's default bound).
const MAX_LINE: u64 = 64 * 1024 * 1024;
/// Validation issues named in one `isError` text (the rest are counted).
const MAX_ISSUES: usize = 8;
/// Longest text kept of one issue (messages quote the offending value).
const MAX_ISSUE_TEXT: usize = 160;

/// What a generated crate tells the runtime: its spec (`spec.json`: the server block and each
/// tool's JSON Schemas, as the build wrote them) and the build's tool listings per protocol
/// revision (`tools/<revision>.json`).
#[derive(Debug)]
pub struct Spec {
    /// The JSON text of `spec.json`.
    pub spec: &'static str,
    /// `(revision, JSON text of its tools/list result)`, oldest first.
    pub listings: &'static [(&'static str, &'static str)],
}

/// `spec.json`: what the server says of itself and each tool's schemas.
#[derive(Debug, serde::Deserialize)]
struct SpecFile {
    server: ServerBlock,
    tools: Vec<ToolSchemas>,
}

#[derive(Debug, serde::Deserialize)]
struct ServerBlock {
    name: String,
    version: String,
    title: Option<String>,
    description: Option<String>,
    instructions: Option<String>,
}

#[derive(Debug, serde::Deserialize)]
struct ToolSchemas {
    name: String,
    input: Value,
    output: Option<Value>,
}

/// The typed side of a server: the generated crate implements it for every `Handlers`,
/// turning validated arguments into the tool's input type and its output into JSON.
pub trait Dispatch: Send + Sync + 'static {
    /// The spec set this crate was generated from.
    const SPEC: &'static Spec;

    /// Call the handler of tool `name` with `arguments` (already valid for its input schema).
    fn dispatch(
        &self,
        name: &str,
        arguments: Value,
    ) -> impl Future<Output = Result<Value, Failure>> + Send;
}

/// Return it from a handler to fail the call with a message meant for the model (`isError`).
/// [`ToolError::internal`] keeps the cause out of the answer: the model reads a generic
/// message, the cause goes to stderr.
#[derive(Debug)]
pub struct ToolError(ErrorKind);

#[derive(Debug)]
enum ErrorKind {
    Message(String),
    Internal(Box<dyn std::error::Error + Send + Sync>),
}

impl ToolError {
    /// A failure the model reads and can act on.
    pub fn new(message: impl Into<String>) -> Self {
        Self(ErrorKind::Message(message.into()))
    }

    /// A failure whose cause is logged, never sent.
    pub fn internal(cause: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self(ErrorKind::Internal(cause.into()))
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            ErrorKind::Message(message) => f.write_str(message),
            ErrorKind::Internal(cause) => write!(f, "internal error: {cause}"),
        }
    }
}

impl std::error::Error for ToolError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.0 {
            ErrorKind::Message(_) => None,
            ErrorKind::Internal(cause) => Some(cause.as_ref()),
        }
    }
}

/// Why a dispatched call produced no value.
#[derive(Debug)]
pub enum Failure {
    /// The handler failed.
    Tool(ToolError),
    /// Valid arguments did not fit the input type (a bug in the generated types).
    Arguments(serde_json::Error),
    /// The output did not serialize.
    Output(serde_json::Error),
    /// No tool of that name.
    UnknownTool,
}

/// The input of a dispatched call, as the handler's type.
pub fn arguments<T: DeserializeOwned>(arguments: Value) -> Result<T, Failure> {
    serde_json::from_value(arguments).map_err(Failure::Arguments)
}

/// A handler's answer as JSON.
pub fn output<T: Serialize>(answer: Result<T, ToolError>) -> Result<Value, Failure> {
    serde_json::to_value(answer.map_err(Failure::Tool)?).map_err(Failure::Output)
}

// -- what the generated types use ---------------------------------------------------------------

/// Reads a member that is there, even as `null`, as `Some`: an optional nullable member
/// (`Option<Option<T>>`) tells an explicit `null` (`Some(None)`) from an absent member (`None`).
#[allow(dead_code)] // used by the types of the spec sets that have such members
pub fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

/// No value: the type of what a schema of `false` (or one no value satisfies) would hold.
#[allow(dead_code)] // used by the types of the spec sets that have such schemas
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Never {}

/// The elements of a `prefixItems` tuple whose later elements may be missing or followed by
/// more (the rest), read one by one into a tuple struct's fields (errors as `E`, the
/// deserializer's).
#[allow(dead_code)] // used by the types of the spec sets that have such tuples
pub struct Elements<E> {
    items: std::collections::VecDeque<Value>,
    error: std::marker::PhantomData<E>,
}

#[allow(dead_code)]
impl<E: de::Error> Elements<E> {
    /// The elements of the array `deserializer` holds.
    pub fn read<'de, D: Deserializer<'de, Error = E>>(deserializer: D) -> Result<Self, E> {
        let items = Vec::<Value>::deserialize(deserializer)?;
        Ok(Self {
            items: items.into(),
            error: std::marker::PhantomData,
        })
    }

    /// The next element, which must be there.
    pub fn next<T: DeserializeOwned>(&mut self) -> Result<T, E> {
        let item = self.items.pop_front();
        let item = item.ok_or_else(|| E::custom("too few elements in the array"))?;
        serde_json::from_value(item).map_err(E::custom)
    }

    /// The next element, if the array goes on.
    pub fn optional<T: DeserializeOwned>(&mut self) -> Result<Option<T>, E> {
        let item = self.items.pop_front();
        item.map(|item| serde_json::from_value(item).map_err(E::custom))
            .transpose()
    }

    /// Every element left.
    pub fn rest<T: DeserializeOwned>(&mut self) -> Result<Vec<T>, E> {
        let items = self.items.drain(..);
        items
            .map(|item| serde_json::from_value(item).map_err(E::custom))
            .collect()
    }

    /// No element is left over.
    pub fn end(self) -> Result<(), E> {
        if self.items.is_empty() {
            Ok(())
        } else {
            Err(E::custom("too many elements in the array"))
        }
    }
}

/// The elements of such a tuple written back as a JSON array.
#[allow(dead_code)] // used by the types of the spec sets that have such tuples
#[derive(Debug, Default)]
pub struct Sequence {
    items: Vec<Value>,
    failed: Option<serde_json::Error>,
}

#[allow(dead_code)]
impl Sequence {
    /// Append an element.
    pub fn push(&mut self, item: &impl Serialize) {
        match serde_json::to_value(item) {
            Ok(value) => self.items.push(value),
            Err(error) => self.failed = self.failed.take().or(Some(error)),
        }
    }

    /// Append an optional element when it is there.
    pub fn push_some(&mut self, item: Option<&impl Serialize>) {
        if let Some(item) = item {
            self.push(item);
        }
    }

    /// Append every element of the rest.
    pub fn extend(&mut self, items: &[impl Serialize]) {
        for item in items {
            self.push(item);
        }
    }
}

impl Serialize for Sequence {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let Some(error) = &self.failed {
            return Err(serde::ser::Error::custom(error));
        }
        serializer.collect_seq(&self.items)
    }
}

/// The embedded spec files could not be read: a build's files were edited or are corrupt.
#[derive(Debug)]
pub struct SpecError {
    pub file: String,
    pub reason: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.reason)
    }
}

impl std::error::Error for SpecError {}

fn parse<T: DeserializeOwned>(file: impl Into<String>, text: &str) -> Result<T, SpecError> {
    serde_json::from_str(text).map_err(|error| SpecError {
        file: file.into(),
        reason: error.to_string(),
    })
}

/// One revision's `tools/list` result and which tools' outputs it wraps as `{"result": ...}`.
#[derive(Debug)]
struct Listing {
    revision: &'static str,
    body: Value,
    definitions: HashMap<String, Value>,
}

impl Listing {
    fn read(spec: &Spec) -> Result<Vec<Self>, SpecError> {
        let mut listings = Vec::with_capacity(spec.listings.len());
        for (revision, text) in spec.listings {
            let mut body: Value = parse(format!("tools/{revision}.json"), text)?;
            if let Some(fields) = body.as_object_mut() {
                fields.remove("_meta"); // the build's note about itself, not part of the answer
            }
            let tools = body.get("tools").and_then(Value::as_array);
            let definitions = tools
                .into_iter()
                .flatten()
                .filter_map(|tool| Some((tool.get("name")?.as_str()?.to_owned(), tool.clone())))
                .collect();
            listings.push(Self {
                revision,
                body,
                definitions,
            });
        }
        Ok(listings)
    }

    /// The listing of the latest revision at or before `revision` (the earliest for older ones).
    fn pick<'a>(listings: &'a [Self], revision: &str) -> Option<&'a Self> {
        let at_or_before = listings.iter().rev().find(|l| l.revision <= revision);
        at_or_before.or_else(|| listings.first())
    }

    fn wraps(&self, tool: &str) -> bool {
        self.definitions.get(tool).is_some_and(|definition| {
            definition.get("outputSchema").is_some()
                && definition
                    .pointer("/_meta")
                    .and_then(|m| m.get(WRAPPED_META_KEY))
                    == Some(&Value::from(WRAP_KEY))
        })
    }
}

// -- the server ---------------------------------------------------------------------------------

struct Compiled {
    input: jsonschema::Validator,
    output: Option<jsonschema::Validator>,
}

fn compile(file: String, schema: &Value) -> Result<jsonschema::Validator, SpecError> {
    jsonschema::draft202012::new(schema).map_err(|error| SpecError {
        file,
        reason: error.to_string(),
    })
}

struct Core<D> {
    handlers: D,
    tools: HashMap<String, Compiled>,
    listings: Vec<Listing>,
    versions: Vec<ProtocolVersion>,
    info: InitializeResult,
}

/// The spec set's tools on `rmcp`, for any [`Dispatch`]: `tools/list` answers the build's
/// listing for the request's revision exactly (the SDK's `Tool` type would drop fields it
/// does not model, so the listing is answered below `ServerHandler`, as raw JSON);
/// `tools/call` checks the arguments against the input schema, calls the handler and checks
/// its result against the output schema before anything is sent.
pub struct Server<D>(Arc<Core<D>>);

impl<D> Clone for Server<D> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<D: Dispatch> Server<D> {
    /// Compile every schema once and read the listings.
    pub fn new(handlers: D) -> Result<Self, SpecError> {
        let spec = D::SPEC;
        let file: SpecFile = parse("spec.json", spec.spec)?;
        let mut tools = HashMap::with_capacity(file.tools.len());
        for tool in file.tools {
            let input = compile(format!("{}: input schema", tool.name), &tool.input)?;
            let output = match &tool.output {
                None => None,
                Some(schema) => Some(compile(format!("{}: output schema", tool.name), schema)?),
            };
            tools.insert(tool.name, Compiled { input, output });
        }
        let listings = Listing::read(spec)?;
        // Only the revisions the build has a listing for: a client asking for another is
        // offered the newest one with a handshake.
        let versions: Vec<ProtocolVersion> = ProtocolVersion::KNOWN_VERSIONS
            .iter()
            .filter(|v| listings.iter().any(|l| l.revision == v.as_str()))
            .cloned()
            .collect();
        let handshake = versions.iter().rev().find(|v| v.has_initialize()).cloned();
        let server = file.server;
        let mut implementation = Implementation::new(server.name, server.version);
        if let Some(title) = server.title {
            implementation = implementation.with_title(title);
        }
        if let Some(description) = server.description {
            implementation = implementation.with_description(description);
        }
        let mut info = InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(implementation)
            .with_protocol_version(handshake.unwrap_or(ProtocolVersion::LATEST_WITH_INITIALIZE));
        if let Some(instructions) = server.instructions {
            info = info.with_instructions(instructions);
        }
        Ok(Self(Arc::new(Core {
            handlers,
            tools,
            listings,
            versions,
            info,
        })))
    }

    fn listing(&self, context: &RequestContext<RoleServer>) -> Option<&Listing> {
        let revision = context.protocol_version();
        let revision = revision.as_ref().map_or("", ProtocolVersion::as_str);
        Listing::pick(&self.0.listings, revision)
    }

    async fn call(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let name = request.name.as_ref();
        let Some(tool) = self.0.tools.get(name) else {
            let shown: String = name.chars().take(128).collect();
            let message = format!("Unknown tool: {}", quoted(&shown));
            return Err(ErrorData::invalid_params(message, None));
        };
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        if !tool.input.is_valid(&arguments) {
            let issues = describe(&tool.input, &arguments);
            let message = format!("Invalid arguments for tool {}: {issues}", quoted(name));
            return Ok(error_result(message));
        }
        let value = match self.0.handlers.dispatch(name, arguments).await {
            Ok(value) => value,
            Err(failure) => return Ok(failed(name, failure)),
        };
        let Some(output) = &tool.output else {
            return Ok(unstructured(value));
        };
        if !output.is_valid(&value) {
            let issues = describe(output, &value);
            eprintln!(
                "toolgen: tool {} returned a result its output schema refuses: {issues}",
                quoted(name)
            );
            return Ok(error_result(format!(
                "Tool {} produced a result that does not match its output schema; the server logged the details",
                quoted(name)
            )));
        }
        let revision = context.protocol_version();
        let revision = revision.as_ref().map_or("", ProtocolVersion::as_str);
        let wraps = self.listing(context).is_some_and(|l| l.wraps(name));
        Ok(structured(value, revision, wraps))
    }
}

/// The `CallToolResult` of a valid output: `structuredContent` (from 2025-06-18; wrapped as
/// `{"result": ...}` where the revision's definition says so) and its JSON as text, a string
/// as itself.
fn structured(value: Value, revision: &str, wraps: bool) -> CallToolResult {
    let text = match &value {
        Value::String(text) => text.clone(),
        _ if wraps => serde_json::json!({ WRAP_KEY: &value }).to_string(),
        _ => value.to_string(),
    };
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    if revision >= "2025-06-18" {
        let content = if wraps {
            serde_json::json!({ WRAP_KEY: value })
        } else {
            value
        };
        result.structured_content = Some(content);
    }
    result
}

/// The result of a tool without output schema: a string as text, nothing as no content,
/// anything else as its JSON.
fn unstructured(value: Value) -> CallToolResult {
    match value {
        Value::Null => CallToolResult::success(Vec::new()),
        Value::String(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
        other => CallToolResult::success(vec![ContentBlock::text(other.to_string())]),
    }
}

fn error_result(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

/// A failed call as the model sees it: a `ToolError`'s own message, else a generic one
/// (the cause goes to stderr only).
fn failed(name: &str, failure: Failure) -> CallToolResult {
    let cause: Box<dyn fmt::Display> = match failure {
        Failure::Tool(ToolError(ErrorKind::Message(message))) => {
            return error_result(if message.is_empty() {
                format!("Tool {} failed", quoted(name))
            } else {
                message
            });
        }
        Failure::Tool(ToolError(ErrorKind::Internal(cause))) => Box::new(cause),
        Failure::Arguments(error) => Box::new(format!("arguments did not decode: {error}")),
        Failure::Output(error) => Box::new(format!("output did not encode: {error}")),
        Failure::UnknownTool => Box::new("the handlers have no method for it"),
    };
    eprintln!("toolgen: tool {} failed: {cause}", quoted(name));
    error_result(format!(
        "Tool {} failed with an internal error; the server logged the details",
        quoted(name)
    ))
}

/// Every problem with `value`, each naming its field (`tags[0]`), in the validator's order.
fn describe(validator: &jsonschema::Validator, value: &Value) -> String {
    let mut shown = Vec::new();
    let mut hidden = 0usize;
    for error in validator.iter_errors(value) {
        if shown.len() == MAX_ISSUES {
            hidden += 1;
            continue;
        }
        let mut location = String::new();
        for segment in error.instance_path().iter() {
            match segment {
                jsonschema::paths::LocationSegment::Index(index) => {
                    location.push_str(&format!("[{index}]"));
                }
                jsonschema::paths::LocationSegment::Property(name) => {
                    if !location.is_empty() {
                        location.push('.');
                    }
                    location.push_str(&name);
                }
            }
        }
        if location.is_empty() {
            location.push_str("(root)");
        }
        shown.push(format!("{location}: {}", shorten(&error.to_string())));
    }
    let mut text = shown.join("; ");
    if hidden > 0 {
        text.push_str(&format!("; and {hidden} more problem(s)"));
    }
    text
}

fn shorten(message: &str) -> String {
    let words: Vec<&str> = message.split_whitespace().collect();
    let message = words.join(" ");
    let count = message.chars().count();
    if count <= MAX_ISSUE_TEXT {
        return message;
    }
    let half = MAX_ISSUE_TEXT / 2 - 2;
    let head: String = message.chars().take(half).collect();
    let tail: String = message.chars().skip(count - half).collect();
    format!("{head} … {tail}")
}

/// A name quoted as the Python runtime's messages quote it.
fn quoted(name: &str) -> String {
    let quote = if name.contains('\'') && !name.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut text = String::with_capacity(name.len() + 2);
    text.push(quote);
    for c in name.chars() {
        match c {
            '\\' => text.push_str("\\\\"),
            '\n' => text.push_str("\\n"),
            '\r' => text.push_str("\\r"),
            '\t' => text.push_str("\\t"),
            c if c == quote => {
                text.push('\\');
                text.push(c);
            }
            c if c.is_control() => text.push_str(&format!("\\x{:02x}", u32::from(c))),
            c => text.push(c),
        }
    }
    text.push(quote);
    text
}

/// The `ServerHandler` half: everything but the listing, which [`Server`] answers itself.
struct Handler<D>(Server<D>);

impl<D: Dispatch> ServerHandler for Handler<D> {
    fn get_info(&self) -> InitializeResult {
        self.0.0.info.clone()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Owned(self.0.0.versions.clone())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::default()) // replaced by the build's listing in `Server`
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.0
            .call(request, &context)
            .await
            .map(CallToolResponse::from)
    }
}

impl<D: Dispatch> Service<RoleServer> for Server<D> {
    async fn handle_request(
        &self,
        request: <RoleServer as ServiceRole>::PeerReq,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        // The SDK checks the request (revision, metadata) first; the answer is the build's.
        let listing = match request {
            ClientRequest::ListToolsRequest(_) => self.listing(&context).map(|l| l.body.clone()),
            _ => None,
        };
        let answer = Handler(self.clone())
            .handle_request(request, context)
            .await?;
        Ok(match listing {
            Some(body) => ServerResult::CustomResult(CustomResult(body)),
            None => answer,
        })
    }

    async fn handle_notification(
        &self,
        notification: <RoleServer as ServiceRole>::PeerNot,
        context: NotificationContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Handler(self.clone())
            .handle_notification(notification, context)
            .await
    }

    fn get_info(&self) -> InitializeResult {
        self.0.info.clone()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Owned(self.0.versions.clone())
    }
}

/// Why serving stopped.
#[derive(Debug)]
pub enum ServeError {
    Spec(SpecError),
    Initialize(Box<ServerInitializeError>),
    Io(io::Error),
    Stopped(tokio::task::JoinError),
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Spec(error) => write!(f, "the generated crate's spec files: {error}"),
            Self::Initialize(error) => write!(f, "the session did not start: {error}"),
            Self::Io(error) => write!(f, "stdio: {error}"),
            Self::Stopped(error) => write!(f, "the server stopped: {error}"),
        }
    }
}

impl std::error::Error for ServeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Spec(error) => Some(error),
            Self::Initialize(error) => Some(error.as_ref()),
            Self::Io(error) => Some(error),
            Self::Stopped(error) => Some(error),
        }
    }
}

impl From<SpecError> for ServeError {
    fn from(error: SpecError) -> Self {
        Self::Spec(error)
    }
}

type Output = Arc<tokio::sync::Mutex<tokio::io::Stdout>>;

async fn write_line(out: &Output, mut line: Vec<u8>) -> io::Result<()> {
    line.push(b'\n');
    let mut out = out.lock().await;
    out.write_all(&line).await?;
    out.flush().await
}

async fn refuse(out: &Output, code: i32, message: &str) -> io::Result<()> {
    let error = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code, "message": message},
    });
    write_line(out, error.to_string().into_bytes()).await
}

/// The next message on stdin for the SDK. What the SDK would drop without a word is answered
/// here: malformed JSON (-32700), a batch or a line past the size bound (-32600), all with
/// `id: null`. `None` at the end of input.
async fn next_message(
    input: &mut BufReader<tokio::io::Stdin>,
    opened: &AtomicBool,
    out: &Output,
) -> io::Result<Option<RxJsonRpcMessage<RoleServer>>> {
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut *input)
            .take(MAX_LINE + 1)
            .read_until(b'\n', &mut line)
            .await?;
        if read == 0 {
            return Ok(None);
        }
        if line.len() as u64 > MAX_LINE && line.last() != Some(&b'\n') {
            // Skip the rest of the line without holding it.
            let mut rest = Vec::new();
            while (&mut *input)
                .take(MAX_LINE)
                .read_until(b'\n', &mut rest)
                .await?
                > 0
            {
                if rest.last() == Some(&b'\n') {
                    break;
                }
                rest.clear();
            }
            let message = format!("Message too large: the limit is {MAX_LINE} bytes per line");
            refuse(out, -32600, &message).await?;
            continue;
        }
        let text = line.trim_ascii();
        if text.is_empty() {
            continue;
        }
        if let Ok(message) = serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(text) {
            // Before a session opens, the SDK stops at anything but a request; a notification
            // needs no answer, so it is dropped here instead.
            if matches!(message, JsonRpcMessage::Request(_)) || opened.load(Ordering::Acquire) {
                return Ok(Some(message));
            }
            continue;
        }
        match serde_json::from_slice::<Value>(text) {
            Err(_) => refuse(out, -32700, "Parse error: not valid JSON").await?,
            Ok(Value::Array(_)) => {
                refuse(
                    out,
                    -32600,
                    "Invalid Request: JSON-RPC batches are not supported",
                )
                .await?;
            }
            Ok(message) => {
                let id = message
                    .get("id")
                    .filter(|id| id.is_string() || id.is_i64() || id.is_u64());
                let error = serde_json::json!({
                    "jsonrpc": "2.0",
                    "id": id,
                    "error": {"code": -32600, "message": "Invalid Request: not a JSON-RPC message"},
                });
                write_line(out, error.to_string().into_bytes()).await?;
            }
        }
    }
}

impl<D: Dispatch> Server<D> {
    /// Serve over stdin and stdout until the input ends.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        let out: Output = Arc::new(tokio::sync::Mutex::new(tokio::io::stdout()));
        let input = BufReader::new(tokio::io::stdin());
        let failure: Arc<std::sync::Mutex<Option<io::Error>>> = Arc::default();
        let opened = Arc::new(AtomicBool::new(false));
        let reading = {
            let (out, failure, opened) = (out.clone(), failure.clone(), opened.clone());
            futures::stream::unfold(input, move |mut input| {
                let (out, failure, opened) = (out.clone(), failure.clone(), opened.clone());
                async move {
                    match next_message(&mut input, &opened, &out).await {
                        Ok(message) => message.map(|message| (message, input)),
                        Err(error) => {
                            if let Ok(mut slot) = failure.lock() {
                                *slot = Some(error);
                            }
                            None
                        }
                    }
                }
            })
        };
        let writing = futures::sink::unfold(out, |out, message: ServerJsonRpcMessage| async move {
            let line = serde_json::to_vec(&message).map_err(io::Error::other)?;
            write_line(&out, line).await?;
            Ok::<_, io::Error>(out)
        });
        let running = match self.serve((Box::pin(writing), Box::pin(reading))).await {
            Ok(running) => running,
            // The input ended before a session opened: nothing was asked, nothing failed.
            Err(ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
            Err(error) => return Err(ServeError::Initialize(Box::new(error))),
        };
        opened.store(true, Ordering::Release);
        running.waiting().await.map_err(ServeError::Stopped)?;
        let failed = failure.lock().ok().and_then(|mut slot| slot.take());
        failed.map_or(Ok(()), |error| Err(ServeError::Io(error)))
    }
}

/// Serve `handlers` over stdio (a malformed line is answered -32700 with `id: null`, a batch
/// is refused) until the input ends.
pub async fn serve_stdio<D: Dispatch>(handlers: D) -> Result<(), ServeError> {
    Server::new(handlers)?.serve_stdio().await
}

// -- the client ---------------------------------------------------------------------------------

/// At the first call, a server whose tools differ from the spec: fail, warn on stderr, or go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DriftPolicy {
    Error,
    #[default]
    Warn,
    Ignore,
}

/// One way the server's tools differ from the spec: a tool it does not list (`missing`) or lists
/// twice (`name`), a field of its definition, or `safety` (the spec says safe, the server hints
/// it may destroy data: the client does not call it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drift {
    pub tool: String,
    pub field: String,
    pub message: String,
}

impl fmt::Display for Drift {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.tool, self.message)
    }
}

/// Why a typed call failed.
#[derive(Debug)]
pub enum ClientError {
    /// The server's tools differ from the spec (with [`DriftPolicy::Error`], or a safety drift
    /// of the tool called, whatever the policy).
    Drift(Vec<Drift>),
    /// The tool answered `isError`: its text.
    Tool { tool: String, text: String },
    /// The request failed (transport, JSON-RPC error).
    Service(ServiceError),
    /// The answer did not fit the output type.
    Decode {
        tool: String,
        source: serde_json::Error,
    },
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Drift(drift) => {
                write!(
                    f,
                    "the server's tools differ from the spec ({}): ",
                    drift.len()
                )?;
                for (index, item) in drift.iter().enumerate() {
                    let separator = if index == 0 { "" } else { "; " };
                    write!(f, "{separator}{item}")?;
                }
                Ok(())
            }
            Self::Tool { tool, text } => write!(f, "tool {} failed: {text}", quoted(tool)),
            Self::Service(error) => write!(f, "{error}"),
            Self::Decode { tool, source } => {
                write!(
                    f,
                    "the result of tool {} does not fit its type: {source}",
                    quoted(tool)
                )
            }
        }
    }
}

impl std::error::Error for ClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Service(error) => Some(error),
            Self::Decode { source, .. } => Some(source),
            Self::Drift(_) | Self::Tool { .. } => None,
        }
    }
}

impl From<ServiceError> for ClientError {
    fn from(error: ServiceError) -> Self {
        Self::Service(error)
    }
}

const COMPARED: [&str; 6] = [
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "_meta",
];
const UNSAFE: &str = "the spec says it is safe to call, the server hints it may destroy data: the client does not call it";

/// Calls through a connected `rmcp` client, checked against the spec's listings.
pub struct ToolClient {
    peer: Peer<RoleClient>,
    listings: Vec<Listing>,
    policy: DriftPolicy,
    drift: tokio::sync::OnceCell<Vec<Drift>>,
}

impl ToolClient {
    /// A client of the spec set `spec` over `peer` (a running `rmcp` client's peer).
    pub fn new(
        peer: Peer<RoleClient>,
        spec: &Spec,
        policy: DriftPolicy,
    ) -> Result<Self, SpecError> {
        Ok(Self {
            peer,
            listings: Listing::read(spec)?,
            policy,
            drift: tokio::sync::OnceCell::new(),
        })
    }

    /// The negotiated revision's listing in the spec.
    fn expected(&self) -> Option<&Listing> {
        let info = self.peer.peer_info();
        let revision = info
            .as_ref()
            .map_or("", |info| info.protocol_version.as_str());
        Listing::pick(&self.listings, revision)
    }

    /// How the server's `tools/list` differs from the spec (asked once, then remembered).
    pub async fn drift(&self) -> Result<&[Drift], ClientError> {
        let drift = self
            .drift
            .get_or_try_init(|| async {
                let listed = self.peer.list_all_tools().await?;
                let expected = self.expected().map(|l| &l.definitions);
                let drift = compare(expected.into_iter().flat_map(|d| d.values()), &listed);
                if !drift.is_empty() && self.policy == DriftPolicy::Warn {
                    eprintln!("{}", ClientError::Drift(drift.clone()));
                }
                Ok::<_, ClientError>(drift)
            })
            .await?;
        Ok(drift)
    }

    /// Call `tool`; `isError` is [`ClientError::Tool`]. The SDK's result (tools without output).
    pub async fn result(
        &self,
        tool: &str,
        input: &impl Serialize,
    ) -> Result<CallToolResult, ClientError> {
        let drift = self.drift().await?;
        let blocking: Vec<Drift> = drift
            .iter()
            .filter(|d| {
                self.policy == DriftPolicy::Error || (d.tool == tool && d.field == "safety")
            })
            .cloned()
            .collect();
        if !blocking.is_empty() {
            return Err(ClientError::Drift(blocking));
        }
        let arguments = match serde_json::to_value(input) {
            Ok(Value::Object(arguments)) => arguments,
            Ok(_) => JsonObject::new(),
            Err(source) => {
                let tool = tool.to_owned();
                return Err(ClientError::Decode { tool, source });
            }
        };
        let request = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        let result = self.peer.call_tool(request).await?;
        if result.is_error == Some(true) {
            return Err(ClientError::Tool {
                tool: tool.to_owned(),
                text: text_of(&result),
            });
        }
        Ok(result)
    }

    /// Call `tool`: its structured value as `O`, unwrapped where the revision wraps it (without
    /// `structuredContent`, read from the text; a string output is the text itself).
    #[allow(dead_code)] // unused in a crate whose tools all lack output schemas
    pub async fn call<O: DeserializeOwned>(
        &self,
        tool: &str,
        input: &impl Serialize,
    ) -> Result<O, ClientError> {
        let result = self.result(tool, input).await?;
        let wraps = self.expected().is_some_and(|l| l.wraps(tool));
        let decoded = match result.structured_content {
            Some(Value::Object(mut fields)) if wraps && fields.contains_key(WRAP_KEY) => {
                serde_json::from_value(fields.remove(WRAP_KEY).unwrap_or_default())
            }
            Some(value) => serde_json::from_value(value),
            None => {
                let text = text_of(&result);
                serde_json::from_str(&text).or_else(|_| serde_json::from_value(Value::String(text)))
            }
        };
        decoded.map_err(|source| ClientError::Decode {
            tool: tool.to_owned(),
            source,
        })
    }
}

fn text_of(result: &CallToolResult) -> String {
    let texts = result.content.iter().filter_map(ContentBlock::as_text);
    texts.map(|block| block.text.as_str()).collect()
}

/// How the `listed` tools differ from the `expected` definitions, compared as rmcp reads them
/// (both through its `Tool` type). Tools listed beyond the spec are not drift.
fn compare<'a>(expected: impl Iterator<Item = &'a Value>, listed: &[Tool]) -> Vec<Drift> {
    let mut by_name: HashMap<&str, Vec<Value>> = HashMap::new();
    for tool in listed {
        let value = serde_json::to_value(tool).unwrap_or_default();
        by_name.entry(tool.name.as_ref()).or_default().push(value);
    }
    let mut expected: Vec<(String, Value)> = expected
        .map(|definition| {
            let name = definition
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let seen = serde_json::from_value::<Tool>(definition.clone())
                .ok()
                .and_then(|tool| serde_json::to_value(tool).ok())
                .unwrap_or_else(|| definition.clone());
            (name.to_owned(), seen)
        })
        .collect();
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    let mut found = Vec::new();
    for (tool, spec) in &expected {
        let drift = |field: &str, message: String| Drift {
            tool: tool.clone(),
            field: field.to_owned(),
            message,
        };
        let entries = by_name.get(tool.as_str()).map_or(&[][..], Vec::as_slice);
        if entries.is_empty() {
            found.push(drift(
                "missing",
                "the server does not list this tool".to_owned(),
            ));
            continue;
        }
        if entries.len() > 1 {
            let message = format!("the server lists this tool {} times", entries.len());
            found.push(drift("name", message));
        }
        for served in entries {
            for field in COMPARED {
                let want = spec.get(field);
                let mut got = served.get(field).cloned();
                if field == "_meta" {
                    // Only the keys the spec declares there count (others are free).
                    let declared = want.and_then(Value::as_object);
                    let kept: JsonObject = got
                        .as_ref()
                        .and_then(Value::as_object)
                        .into_iter()
                        .flatten()
                        .filter(|(key, _)| declared.is_some_and(|d| d.contains_key(*key)))
                        .map(|(key, value)| (key.clone(), value.clone()))
                        .collect();
                    got = (!kept.is_empty()).then_some(Value::Object(kept));
                }
                if want != got.as_ref() {
                    let message = match (want, &got) {
                        (_, None) => format!("`{field}` is missing (the spec declares one)"),
                        (None, _) => {
                            format!("`{field}` is declared by the server, not by the spec")
                        }
                        _ => format!("`{field}` differs from the spec"),
                    };
                    found.push(drift(field, message));
                }
            }
        }
        let served = entries.iter().map(|served| served.get("annotations"));
        if !may_destroy([spec.get("annotations")]) && may_destroy(served) {
            found.push(drift("safety", UNSAFE.to_owned()));
        }
    }
    found
}

/// Whether a tool may destroy data by any of these `annotations` (the spec's, each listing
/// entry's): safe only by `readOnlyHint: true` or `destructiveHint: false` as booleans;
/// anything else reads as the MCP default, destructive. The rule of `toolgen call` and
/// `toolgen verify`.
fn may_destroy<'a>(annotations: impl IntoIterator<Item = Option<&'a Value>>) -> bool {
    annotations.into_iter().any(|hints| {
        let Some(Value::Object(hints)) = hints else {
            return true;
        };
        hints.get("readOnlyHint") != Some(&Value::Bool(true))
            && hints.get("destructiveHint") != Some(&Value::Bool(false))
    })
}
