// Package toolgen is the runtime of a Go package toolgen generated: the spec set's tools on the
// official Go SDK's mcp.Server (listing, validation, results), a stdio transport that answers
// every line, and the typed client's calls. Every generated package carries the same copy, as
// its internal/toolgen; it reads only the build's own files (tools/<revision>.json and
// schemas/*.schema.json), which the generated package embeds.
package toolgen

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"math/big"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dlclark/regexp2"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	sjson "github.com/segmentio/encoding/json"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

const (
	wrappedMetaKey = "dev.toolgen/wrappedOutput"
	// The first revision of each protocol feature the runtime adapts to.
	annotationsRevision = "2025-03-26"
	batchRevision       = "2025-03-26" // the only revision whose sessions take JSON-RPC batches
	modernRevision      = "2026-07-28" // stateless: every request names its revision
	// maxMessage is the longest line ServeStdio reads, as toolgen's Python runtime.
	maxMessage = 64 << 20
	// maxIssues is how many validation problems an isError message lists.
	maxIssues = 8
	// maxIssueText is the longest text kept of one problem (validators quote values).
	maxIssueText = 160
	// maxPages is how many pages of tools/list the client reads before giving up.
	maxPages = 1000
	// patternTimeout bounds one match of a pattern that needs backtracking.
	patternTimeout = 100 * time.Millisecond
)

// -- the spec ---------------------------------------------------------------------------------

// Spec is a spec set as its build wrote it: the tools/list result of each protocol revision
// (tools/<revision>.json) and each tool's JSON Schemas (schemas/*.schema.json). It is read on
// first use.
type Spec struct {
	files    fs.FS
	once     sync.Once
	err      error
	names    []string            // the tools, in the spec's order
	listings map[string]*listing // by revision
	revs     []string            // the revisions of listings, oldest first
	schemas  map[string]*schemas // by tool name
}

// A listing is the tools/list result of one revision.
type listing struct {
	tools  []json.RawMessage      // the definitions, in the spec's order
	rest   []byte                 // the result's other members (`,"ttlMs":...`), without _meta
	byName map[string]*definition // the same definitions by tool name
}

// A definition is one tool's definition in one revision.
type definition struct {
	raw        json.RawMessage
	structured bool // it has an outputSchema: results carry structuredContent
	wrapped    bool // structuredContent is {"result": value}
}

// schemas are one tool's JSON Schemas, compiled on first use.
type schemas struct {
	input, output json.RawMessage // the documents as the build wrote them
	inputURL      string
	outputURL     string
	once          sync.Once
	err           error
	inputSchema   *jsonschema.Schema
	outputSchema  *jsonschema.Schema
	inputDoc      any  // the input schema as data, for its defaults
	inputDefaults bool // the input schema declares a default somewhere
	stringOutput  bool // the output schema says `type: string`
}

// NewSpec reads the build's files from files (the generated package embeds them) on first use.
func NewSpec(files fs.FS) *Spec {
	return &Spec{files: files}
}

func (s *Spec) load() error {
	s.once.Do(func() { s.err = s.read() })
	return s.err
}

var revisionFile = regexp.MustCompile(`^tools/(\d{4}-\d{2}-\d{2})\.json$`)

func (s *Spec) read() error {
	s.listings = map[string]*listing{}
	s.schemas = map[string]*schemas{}
	files, err := fs.Glob(s.files, "tools/*.json")
	if err != nil {
		return err
	}
	for _, name := range files {
		found := revisionFile.FindStringSubmatch(name)
		if found == nil {
			continue // a provider view, digests: not a listing
		}
		data, err := fs.ReadFile(s.files, name)
		if err != nil {
			return err
		}
		l, names, err := parseListing(data)
		if err != nil {
			return fmt.Errorf("toolgen: %s: %w", name, err)
		}
		s.listings[found[1]] = l
		s.names = names
	}
	if len(s.listings) == 0 {
		return errors.New("toolgen: the spec holds no tools/<revision>.json")
	}
	for rev := range s.listings {
		s.revs = append(s.revs, rev)
	}
	slices.Sort(s.revs)
	if err := s.deriveOlder(); err != nil {
		return err
	}
	return s.readSchemas()
}

func parseListing(data []byte) (*listing, []string, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return nil, nil, err
	}
	var tools []json.RawMessage
	if err := json.Unmarshal(members["tools"], &tools); err != nil {
		return nil, nil, fmt.Errorf("tools: %w", err)
	}
	l := &listing{byName: map[string]*definition{}}
	var names []string
	for _, raw := range tools {
		var compact bytes.Buffer
		if err := json.Compact(&compact, raw); err != nil {
			return nil, nil, err
		}
		d, name, err := newDefinition(compact.Bytes())
		if err != nil {
			return nil, nil, err
		}
		l.tools = append(l.tools, d.raw)
		l.byName[name] = d
		names = append(names, name)
	}
	keys := make([]string, 0, len(members))
	for key := range members {
		if key != "tools" && key != "_meta" { // _meta: the build's note, not the server's
			keys = append(keys, key)
		}
	}
	slices.Sort(keys)
	for _, key := range keys {
		name, _ := json.Marshal(key)
		var value bytes.Buffer
		if err := json.Compact(&value, members[key]); err != nil {
			return nil, nil, err
		}
		l.rest = fmt.Appendf(l.rest, ",%s:%s", name, value.Bytes())
	}
	return l, names, nil
}

func newDefinition(raw json.RawMessage) (*definition, string, error) {
	var fields struct {
		Name         string          `json:"name"`
		OutputSchema json.RawMessage `json:"outputSchema"`
		Meta         map[string]any  `json:"_meta"`
	}
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, "", err
	}
	structured := fields.OutputSchema != nil
	wrapped := structured && fields.Meta[wrappedMetaKey] == "result"
	return &definition{raw: raw, structured: structured, wrapped: wrapped}, fields.Name, nil
}

// deriveOlder adds the listings of the revisions the SDK negotiates that are older than the
// build's files (2024-11-05, 2025-03-26): the oldest file's definitions without what those
// revisions lack (title, outputSchema, _meta; annotations before 2025-03-26, where the title
// goes into annotations.title instead).
func (s *Spec) deriveOlder() error {
	oldest := s.revs[0]
	for _, rev := range mcp.SupportedProtocolVersions() {
		if rev >= oldest {
			continue
		}
		l := &listing{byName: map[string]*definition{}}
		for i, raw := range s.listings[oldest].tools {
			older, err := olderDefinition(raw, rev)
			if err != nil {
				return err
			}
			l.tools = append(l.tools, older)
			l.byName[s.names[i]] = &definition{raw: older}
		}
		s.listings[rev] = l
		s.revs = append([]string{rev}, s.revs...)
	}
	slices.Sort(s.revs)
	return nil
}

func olderDefinition(raw json.RawMessage, rev string) (json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	title := fields["title"]
	for _, key := range []string{"title", "outputSchema", "_meta", "icons", "execution"} {
		delete(fields, key)
	}
	switch {
	case rev < annotationsRevision:
		delete(fields, "annotations")
	case title != nil:
		annotations := map[string]json.RawMessage{}
		if given := fields["annotations"]; given != nil {
			if err := json.Unmarshal(given, &annotations); err != nil {
				return nil, err
			}
		}
		if _, ok := annotations["title"]; !ok {
			annotations["title"] = title
		}
		data, err := json.Marshal(annotations)
		if err != nil {
			return nil, err
		}
		fields["annotations"] = data
	}
	return json.Marshal(fields)
}

func (s *Spec) readSchemas() error {
	files, err := fs.Glob(s.files, "schemas/*.schema.json")
	if err != nil {
		return err
	}
	for _, name := range files {
		data, err := fs.ReadFile(s.files, name)
		if err != nil {
			return err
		}
		var head struct {
			ID string `json:"$id"`
		}
		if err := json.Unmarshal(data, &head); err != nil {
			return fmt.Errorf("toolgen: %s: %w", name, err)
		}
		// urn:toolgen:<server>:<tool>:<part>; neither names holds a colon.
		parts := strings.Split(head.ID, ":")
		if len(parts) != 5 || parts[0] != "urn" || parts[1] != "toolgen" {
			return fmt.Errorf("toolgen: %s: unexpected $id %q", name, head.ID)
		}
		tool, part := parts[3], parts[4]
		found := s.schemas[tool]
		if found == nil {
			found = &schemas{}
			s.schemas[tool] = found
		}
		switch part {
		case "input":
			found.input, found.inputURL = data, head.ID
		case "output":
			found.output, found.outputURL = data, head.ID
		default:
			return fmt.Errorf("toolgen: %s: unexpected $id %q", name, head.ID)
		}
	}
	for _, name := range s.names {
		if s.schemas[name] == nil || s.schemas[name].input == nil {
			return fmt.Errorf("toolgen: no input schema for tool %q", name)
		}
	}
	return nil
}

// compile compiles the tool's schemas, once.
func (t *schemas) compile() error {
	t.once.Do(func() { t.err = t.compileNow() })
	return t.err
}

func (t *schemas) compileNow() error {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseRegexpEngine(ecmaRegexp)
	c.UseLoader(noLoader{})
	var err error
	if t.inputSchema, t.inputDoc, err = compileOne(c, t.inputURL, t.input); err != nil {
		return err
	}
	t.inputDefaults = bytes.Contains(t.input, []byte(`"default"`)) // cheap first look
	if t.output != nil {
		var doc any
		if t.outputSchema, doc, err = compileOne(c, t.outputURL, t.output); err != nil {
			return err
		}
		if object, ok := doc.(map[string]any); ok {
			t.stringOutput = object["type"] == "string"
		}
	}
	return nil
}

func compileOne(c *jsonschema.Compiler, url string, data []byte) (*jsonschema.Schema, any, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	if err := c.AddResource(url, doc); err != nil {
		return nil, nil, err
	}
	compiled, err := c.Compile(url)
	return compiled, doc, err
}

// noLoader refuses every schema the documents do not hold: nothing is ever fetched.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("toolgen: schemas are self-contained; not loading %s", url)
}

// listing returns the tools/list result of rev: its own, else the newest older one, else the
// oldest.
func (s *Spec) listing(rev string) *listing {
	if found := s.listings[rev]; found != nil {
		return found
	}
	chosen := s.revs[0]
	for _, known := range s.revs {
		if known <= rev {
			chosen = known
		}
	}
	return s.listings[chosen]
}

// -- validation -------------------------------------------------------------------------------

// parse reads JSON as the validator wants it: numbers as json.Number, never rounded.
func parse(data []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(data))
}

var english = message.NewPrinter(language.English)

// problems describes why a value failed its schema, one problem per failing keyword:
// `tags[0]: 'X' does not match pattern ...; title: ...`.
func problems(err error) string {
	var invalid *jsonschema.ValidationError
	if !errors.As(err, &invalid) {
		return err.Error()
	}
	var leaves []string
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 && e.ErrorKind != nil {
			text := e.ErrorKind.LocalizedString(english)
			if len(text) > maxIssueText {
				text = text[:maxIssueText-1] + "…"
			}
			leaves = append(leaves, location(e.InstanceLocation)+": "+text)
		}
		for _, cause := range e.Causes {
			walk(cause)
		}
	}
	walk(invalid)
	shown := strings.Join(leaves[:min(len(leaves), maxIssues)], "; ")
	if hidden := len(leaves) - maxIssues; hidden > 0 {
		shown += fmt.Sprintf("; and %d more problem(s)", hidden)
	}
	return shown
}

// location writes a path in a value as toolgen's runtimes do: `tags[0].name`, or `(root)`.
func location(tokens []string) string {
	var b strings.Builder
	for _, token := range tokens {
		if token != "" && strings.Trim(token, "0123456789") == "" {
			b.WriteString("[" + token + "]")
		} else {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(token)
		}
	}
	if b.Len() == 0 {
		return "(root)"
	}
	return b.String()
}

// ECMA-262's character class escapes, as the contents of a bracketed class (the characters
// themselves, so that both regexp engines read them).
var ecmaClasses = map[byte]string{
	'd': "0-9",
	'w': "A-Za-z0-9_",
	's': "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff",
}

// ecmaRegexp compiles a JSON Schema pattern as toolgen's Python runtime reads it: ECMA-262's
// \d, \w, \s (ASCII digits and word characters, ECMA-262's white space), \uXXXX and \cX.
// Go's regexp runs it, or, for what RE2 lacks (lookaround, backreferences), regexp2, whose
// matches are bounded in time.
func ecmaRegexp(pattern string) (jsonschema.Regexp, error) {
	if re, err := regexp.Compile(ecmaPattern(pattern, true)); err == nil {
		return re, nil
	}
	re, err := regexp2.Compile(ecmaPattern(pattern, false), regexp2.None)
	if err != nil {
		return nil, err
	}
	re.MatchTimeout = patternTimeout
	return backtracking{re}, nil
}

type backtracking struct{ re *regexp2.Regexp }

func (b backtracking) MatchString(s string) bool {
	matched, err := b.re.MatchString(s)
	return err == nil && matched // a match that runs out of time fails
}

func (b backtracking) String() string { return b.re.String() }

// ecmaPattern spells out what ECMA-262 means and the regexp engine would read otherwise: the
// class escapes (outside brackets also \D, \W, \S); for RE2, \uXXXX; for regexp2, `$` as the end
// of the text only (it would also match before a final newline).
func ecmaPattern(pattern string, re2 bool) string {
	var b strings.Builder
	inClass := false
	multiline := strings.Contains(pattern, "(?m") || strings.Contains(pattern, "(?sm")
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		if c == '\\' && i+1 < len(pattern) {
			next := pattern[i+1]
			lower := next | 0x20
			set, isClass := ecmaClasses[lower]
			switch {
			case isClass && next == lower && inClass:
				b.WriteString(set)
			case isClass && !inClass && next == lower:
				b.WriteString("[" + set + "]")
			case isClass && !inClass:
				b.WriteString("[^" + set + "]")
			case next == 'u' && re2 && i+6 <= len(pattern) && isHex(pattern[i+2:i+6]):
				b.WriteString(`\x{` + pattern[i+2:i+6] + `}`)
				i += 4
			case next == 'c' && i+2 < len(pattern) && isLetter(pattern[i+2]):
				fmt.Fprintf(&b, `\x%02x`, pattern[i+2]%32)
				i++
			default:
				b.WriteString(pattern[i : i+2])
			}
			i++
			continue
		}
		switch {
		case c == '[' && !inClass:
			inClass = true
		case c == ']' && inClass:
			inClass = false
		case c == '$' && !inClass && !re2 && !multiline:
			b.WriteString(`\z`)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isHex(s string) bool {
	return strings.Trim(s, "0123456789abcdefABCDEF") == ""
}

func isLetter(c byte) bool {
	return c|0x20 >= 'a' && c|0x20 <= 'z'
}

// -- defaults ---------------------------------------------------------------------------------

// applyDefaults fills in every missing property that has a default, as toolgen's Python
// runtime does before a handler runs (through $ref, allOf, properties and items); it changes
// value in place and reports whether it did.
func applyDefaults(schema, value, root any, depth int) bool {
	branches := branchesOf(schema, root, depth)
	changed := false
	switch v := value.(type) {
	case map[string]any:
		for _, branch := range branches {
			properties, _ := branch["properties"].(map[string]any)
			for name, sub := range properties {
				current, present := v[name]
				if !present {
					if object, ok := sub.(map[string]any); ok {
						if fallback, ok := object["default"]; ok {
							v[name] = fallback
							changed = true
						}
					}
					continue
				}
				changed = applyDefaults(sub, current, root, depth+1) || changed
			}
		}
	case []any:
		for _, branch := range branches {
			items, ok := branch["items"].(map[string]any)
			if !ok {
				continue
			}
			for _, element := range v {
				changed = applyDefaults(items, element, root, depth+1) || changed
			}
		}
	}
	return changed
}

// branchesOf is schema and what it always applies too ($ref targets, allOf branches).
func branchesOf(schema, root any, depth int) []map[string]any {
	object, ok := schema.(map[string]any)
	if !ok || depth > 32 {
		return nil
	}
	found := []map[string]any{object}
	if ref, ok := object["$ref"].(string); ok {
		found = append(found, branchesOf(resolvePointer(root, ref), root, depth+1)...)
	}
	if all, ok := object["allOf"].([]any); ok {
		for _, branch := range all {
			found = append(found, branchesOf(branch, root, depth+1)...)
		}
	}
	return found
}

// resolvePointer is the subschema a same-document reference (`#/$defs/Name`) names, or nil.
func resolvePointer(root any, ref string) any {
	fragment, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	fragment, err := url.PathUnescape(fragment)
	if err != nil {
		return nil
	}
	node := root
	for _, token := range strings.Split(fragment, "/")[1:] {
		token = strings.NewReplacer("~1", "/", "~0", "~").Replace(token)
		switch n := node.(type) {
		case map[string]any:
			node = n[token]
		default:
			return nil
		}
	}
	return node
}

// integral rewrites each number of value (as parse reads it, from data) that is an integer
// written with a fraction or an exponent (1.0, 1e3: integers, for JSON Schema) as the integer,
// so that Go's integer types read it; it reports whether it rewrote any. An exponent past
// maxExponent is left as it is (no Go integer holds it).
func integral(value any, data []byte) bool {
	if !bytes.ContainsAny(data, ".eE") {
		return false
	}
	changed := false
	var walk func(any) any
	walk = func(node any) any {
		switch v := node.(type) {
		case json.Number:
			if whole, ok := wholeNumber(string(v)); ok {
				changed = true
				return json.Number(whole)
			}
		case map[string]any:
			for key, member := range v {
				v[key] = walk(member)
			}
		case []any:
			for i, element := range v {
				v[i] = walk(element)
			}
		}
		return node
	}
	walk(value)
	return changed
}

const maxExponent = 400

// wholeNumber is a JSON number with a fraction or an exponent as an integer's digits, when it
// is a whole number.
func wholeNumber(text string) (string, bool) {
	if !strings.ContainsAny(text, ".eE") {
		return "", false
	}
	if at := strings.IndexAny(text, "eE"); at >= 0 {
		exponent, err := strconv.Atoi(strings.TrimPrefix(text[at+1:], "+"))
		if err != nil || exponent > maxExponent || exponent < -maxExponent {
			return "", false
		}
	}
	number, ok := new(big.Rat).SetString(text)
	if !ok || !number.IsInt() {
		return "", false
	}
	return number.Num().String(), true
}

// -- the server -------------------------------------------------------------------------------

// A Handler is one tool's handler, made by Handle for Register.
type Handler struct {
	name string
	call func(ctx context.Context, arguments []byte) (any, error)
}

// Handle makes the handler of the tool called name from a typed function: the arguments (valid
// for the input schema, defaults filled in) are decoded into In; what it returns is checked
// against the output schema and sent as structuredContent with a text fallback. A tool without
// an output schema sends what it returns as text (see Register).
func Handle[In, Out any](name string, handle func(context.Context, In) (Out, error)) Handler {
	return Handler{name: name, call: func(ctx context.Context, arguments []byte) (any, error) {
		var in In
		if err := Decode(arguments, &in); err != nil {
			return nil, &argumentsError{err}
		}
		return handle(ctx, in)
	}}
}

// argumentsError is valid arguments the input type cannot hold (a number beyond its range).
type argumentsError struct{ err error }

func (e *argumentsError) Error() string { return e.err.Error() }

// ToolError is what a handler returns to fail a call with a message meant for the model: the
// result is isError with Message as its text. Any other error answers a generic message and is
// logged (slog) only, so internals never reach the client; a *jsonrpc.Error answers the call
// with that JSON-RPC error instead.
type ToolError struct {
	Message string
}

func (e *ToolError) Error() string { return e.Message }

type registered struct {
	spec    *Spec
	tool    string
	schemas *schemas
	handler Handler
}

// Register adds the spec's tools to s with their handlers, and makes s answer tools/list with
// the spec's definitions for the revision of each request, exactly as the build wrote them,
// followed by every other tool s has. It panics when the spec cannot be read or a handler is
// missing: both are mistakes in the program, not in its input.
func Register(s *mcp.Server, spec *Spec, handlers ...Handler) {
	if err := spec.load(); err != nil {
		panic(err)
	}
	byName := map[string]Handler{}
	for _, h := range handlers {
		byName[h.name] = h
	}
	latest := spec.listings[spec.revs[len(spec.revs)-1]]
	for _, name := range spec.names {
		h, ok := byName[name]
		if !ok {
			panic(fmt.Sprintf("toolgen: no handler for tool %q", name))
		}
		t := &registered{spec: spec, tool: name, schemas: spec.schemas[name], handler: h}
		if err := t.schemas.compile(); err != nil {
			panic(fmt.Sprintf("toolgen: the schemas of tool %q: %v", name, err))
		}
		var tool mcp.Tool // what the SDK keeps; the listing is the spec's own (listTools)
		if err := json.Unmarshal(latest.byName[name].raw, &tool); err != nil {
			panic(err)
		}
		s.AddTool(&tool, t.call)
	}
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			result, err := next(ctx, method, req)
			if err != nil || method != "tools/list" {
				return result, err
			}
			return spec.listTools(req, result)
		}
	})
}

// listTools is the tools/list result: the spec's definitions for the request's revision (first
// page only), then the other tools of the SDK's result (which pages them).
func (s *Spec) listTools(req mcp.Request, result mcp.Result) (mcp.Result, error) {
	data, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	var page struct {
		Tools      []json.RawMessage `json:"tools"`
		NextCursor string            `json:"nextCursor"`
	}
	if err := json.Unmarshal(data, &page); err != nil {
		return nil, err
	}
	session, _ := req.GetSession().(*mcp.ServerSession)
	var meta map[string]any
	cursor := ""
	if params, ok := req.GetParams().(*mcp.ListToolsParams); ok && params != nil {
		meta, cursor = params.Meta, params.Cursor
	}
	l := s.listing(revisionOf(session, meta))
	var tools []json.RawMessage
	if cursor == "" {
		tools = append(tools, l.tools...)
	}
	for _, tool := range page.Tools {
		var head struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(tool, &head); err != nil {
			return nil, err
		}
		if l.byName[head.Name] == nil {
			tools = append(tools, tool)
		}
	}
	body := []byte(`{"tools":[`)
	for i, tool := range tools {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, tool...)
	}
	body = append(body, ']')
	if page.NextCursor != "" {
		next, _ := json.Marshal(page.NextCursor)
		body = fmt.Appendf(body, `,"nextCursor":%s`, next)
	}
	body = append(append(body, l.rest...), '}')
	return &listResult{body: body}, nil
}

// listResult is a tools/list result written as it is; the SDK may add _meta.
type listResult struct {
	mcp.ResultBase
	body []byte
}

func (l *listResult) MarshalJSON() ([]byte, error) {
	if len(l.Meta) == 0 {
		return l.body, nil
	}
	meta, err := json.Marshal(l.Meta)
	if err != nil {
		return nil, err
	}
	out := slices.Clip(l.body[:len(l.body)-1])
	return append(append(append(out, `,"_meta":`...), meta...), '}'), nil
}

// revisionOf is the protocol revision of a request: its own (2026-07-28 on), else the one its
// session negotiated, as the SDK negotiates it.
func revisionOf(session *mcp.ServerSession, meta map[string]any) string {
	if rev, ok := meta[mcp.MetaKeyProtocolVersion].(string); ok {
		return rev
	}
	asked := ""
	if session != nil {
		if params := session.InitializeParams(); params != nil {
			asked = params.ProtocolVersion
		}
	}
	return negotiated(asked)
}

// negotiated is the revision the SDK answers initialize with when asked for asked: that one
// if it knows it (and it has the handshake), else its newest one that has.
func negotiated(asked string) string {
	supported := mcp.SupportedProtocolVersions()
	if asked < modernRevision && slices.Contains(supported, asked) {
		return asked
	}
	for _, rev := range supported {
		if rev < modernRevision {
			return rev
		}
	}
	return asked
}

// call answers one tools/call: arguments checked and completed, the handler called, its
// value checked and sent as the revision wants it.
func (t *registered) call(ctx context.Context, req *mcp.CallToolRequest) (result *mcp.CallToolResult, err error) {
	arguments := bytes.TrimSpace(req.Params.Arguments)
	if len(arguments) == 0 || string(arguments) == "null" {
		arguments = []byte("{}")
	}
	if arguments[0] != '{' {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "tools/call arguments must be an object"}
	}
	value, err := parse(arguments)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "tools/call arguments must be JSON"}
	}
	if err := t.schemas.inputSchema.Validate(value); err != nil {
		return errorResult(fmt.Sprintf("Invalid arguments for tool %s: %s", quoted(t.tool), problems(err))), nil
	}
	defaulted := t.schemas.inputDefaults && applyDefaults(t.schemas.inputDoc, value, t.schemas.inputDoc, 0)
	if integral(value, arguments) || defaulted {
		if arguments, err = json.Marshal(value); err != nil {
			return nil, err
		}
	}
	defer func() {
		if p := recover(); p != nil {
			slog.Error("toolgen: a tool's handler panicked", "tool", t.tool, "panic", p, "stack", string(debug.Stack()))
			result, err = internalError(t.tool), nil
		}
	}()
	returned, err := t.handler.call(ctx, arguments)
	if err != nil {
		return t.failure(err)
	}
	rev := revisionOf(req.Session, req.Params.GetMeta())
	if t.schemas.outputSchema == nil {
		return unstructured(returned)
	}
	return t.structured(rev, returned)
}

// structured is the result of a tool with an output schema: structuredContent (wrapped as
// {"result": value} where the revision's definition says so) and its JSON as text (a string as
// itself); before 2025-06-18 the text alone. A value the schema refuses is never sent.
func (t *registered) structured(rev string, returned any) (*mcp.CallToolResult, error) {
	data, err := Encode(returned)
	if err == nil {
		var value any
		if value, err = parse(data); err == nil {
			err = t.schemas.outputSchema.Validate(value)
		}
	}
	if err != nil {
		slog.Error("toolgen: a tool returned a result its output schema refuses", "tool", t.tool, "problems", problems(err))
		return errorResult(fmt.Sprintf("Tool %s produced a result that does not match its output schema; the server logged the details", quoted(t.tool))), nil
	}
	text := string(data)
	if t.schemas.stringOutput {
		if err := json.Unmarshal(data, &text); err != nil {
			return nil, err
		}
	}
	definition := t.spec.listing(rev).byName[t.tool]
	if !definition.structured {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	}
	if definition.wrapped {
		data = fmt.Appendf(nil, `{"result":%s}`, data)
		if !t.schemas.stringOutput {
			text = string(data)
		}
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: json.RawMessage(data),
	}, nil
}

// unstructured is the result of a tool without an output schema: nothing as no content, a
// string as text, content blocks as they are, anything else as its JSON.
func unstructured(value any) (*mcp.CallToolResult, error) {
	switch v := value.(type) {
	case nil:
		return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
	case string:
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: v}}}, nil
	case []mcp.Content:
		return &mcp.CallToolResult{Content: v}, nil
	case mcp.Content:
		return &mcp.CallToolResult{Content: []mcp.Content{v}}, nil
	}
	data, err := Encode(value)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}, nil
}

// failure is the answer to a handler's error (see ToolError).
func (t *registered) failure(err error) (*mcp.CallToolResult, error) {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		return nil, wire
	}
	var arguments *argumentsError
	if errors.As(err, &arguments) {
		return errorResult(fmt.Sprintf("Invalid arguments for tool %s: %s", quoted(t.tool), arguments.err)), nil
	}
	var refused *ToolError
	if errors.As(err, &refused) {
		if refused.Message == "" {
			return errorResult(fmt.Sprintf("Tool %s failed", quoted(t.tool))), nil
		}
		return errorResult(refused.Message), nil
	}
	slog.Error("toolgen: a tool's handler failed", "tool", t.tool, "error", err)
	return internalError(t.tool), nil
}

func internalError(tool string) *mcp.CallToolResult {
	return errorResult(fmt.Sprintf("Tool %s failed with an internal error; the server logged the details", quoted(tool)))
}

func errorResult(message string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: message}}, IsError: true}
}

// quoted is a tool name in messages, as toolgen's Python runtime writes it ('name').
func quoted(name string) string {
	return "'" + name + "'"
}

// -- JSON -------------------------------------------------------------------------------------

// Encode is a value's JSON as results carry it: compact, without HTML escaping.
func Encode(value any) ([]byte, error) {
	var b bytes.Buffer
	encoder := json.NewEncoder(&b)
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(value); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Decode reads JSON into v, matching member names exactly (encoding/json would also take
// `ID` for `id`).
func Decode(data []byte, v any) error {
	return decode(data, v, sjson.DontMatchCaseInsensitiveStructFields)
}

// DecodeClosed reads JSON into v as Decode does and refuses members v has no field for: the
// UnmarshalJSON of the types of closed objects (additionalProperties: false) calls it.
func DecodeClosed(data []byte, v any) error {
	return decode(data, v, sjson.DontMatchCaseInsensitiveStructFields|sjson.DisallowUnknownFields)
}

func decode(data []byte, v any, flags sjson.ParseFlags) error {
	rest, err := sjson.Parse(data, v, flags)
	if err == nil && len(bytes.TrimSpace(rest)) > 0 {
		err = errors.New("toolgen: unexpected data after the JSON value")
	}
	return err
}

// Nullable is a member that may be absent, null, or a value: the zero Nullable is absent (with
// `omitzero` it is not written); Set is present, then Null is null, else Value.
type Nullable[T any] struct {
	Value T
	Set   bool
	Null  bool
}

// IsZero reports whether n is absent (for `omitzero`).
func (n Nullable[T]) IsZero() bool { return !n.Set }

func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if !n.Set || n.Null {
		return []byte("null"), nil
	}
	return Encode(n.Value)
}

func (n *Nullable[T]) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		*n = Nullable[T]{Set: true, Null: true}
		return nil
	}
	n.Set, n.Null = true, false
	return Decode(data, &n.Value)
}

// Null is the value of a schema that allows only null: written as null, read only from null.
type Null struct{}

func (Null) MarshalJSON() ([]byte, error) { return []byte("null"), nil }

func (*Null) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) != "null" {
		return errors.New("toolgen: expected null")
	}
	return nil
}

// absent reports whether an optional member's value is its zero value (nil, or IsZero): the
// member is left out.
func absent(value any) bool {
	if zero, ok := value.(interface{ IsZero() bool }); ok {
		return zero.IsZero()
	}
	v := reflect.ValueOf(value)
	return !v.IsValid() || v.IsZero()
}

// A Member is one declared member of an object EncodeObject writes (Out) or DecodeObject reads
// (In): the objects whose types need more than struct tags (members beyond the declared ones,
// or a name no struct tag can carry).
type Member struct {
	name     string
	value    any
	optional bool
}

// Out is member name with value to write; an optional one is left out when absent.
func Out(name string, value any, optional bool) Member {
	return Member{name: name, value: value, optional: optional}
}

// In is member name, read into the pointer into.
func In(name string, into any) Member {
	return Member{name: name, value: into}
}

// EncodeObject writes an object: members in order, then the entries of extra (a
// map[string]T, or nil) that are not members, by name.
func EncodeObject(extra any, members ...Member) ([]byte, error) {
	out := []byte{'{'}
	declared := map[string]bool{}
	add := func(name string, value any) error {
		key, err := Encode(name)
		if err != nil {
			return err
		}
		data, err := Encode(value)
		if err != nil {
			return fmt.Errorf("member %s: %w", key, err)
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, key...), ':'), data...)
		return nil
	}
	for _, m := range members {
		declared[m.name] = true
		if m.optional && absent(m.value) {
			continue
		}
		if err := add(m.name, m.value); err != nil {
			return nil, err
		}
	}
	if extra != nil {
		entries := reflect.ValueOf(extra)
		keys := make([]string, 0, entries.Len())
		for _, key := range entries.MapKeys() {
			keys = append(keys, key.String())
		}
		slices.Sort(keys)
		for _, key := range keys {
			if declared[key] {
				continue
			}
			if err := add(key, entries.MapIndex(reflect.ValueOf(key)).Interface()); err != nil {
				return nil, err
			}
		}
	}
	return append(out, '}'), nil
}

// DecodeObject reads an object: each member into its pointer, the others into extra (a pointer
// to a map[string]T), or, when extra is nil, refuses them.
func DecodeObject(data []byte, extra any, members ...Member) error {
	var found map[string]json.RawMessage
	if err := Decode(data, &found); err != nil || found == nil {
		return err
	}
	for _, m := range members {
		raw, ok := found[m.name]
		if !ok {
			continue
		}
		delete(found, m.name)
		if err := Decode(raw, m.value); err != nil {
			return fmt.Errorf("member %q: %w", m.name, err)
		}
	}
	if len(found) == 0 {
		return nil
	}
	if extra == nil {
		names := slices.Sorted(maps.Keys(found))
		return fmt.Errorf("toolgen: unknown member %q", names[0])
	}
	rest, err := json.Marshal(found)
	if err != nil {
		return err
	}
	return Decode(rest, extra)
}

// EncodeTuple writes a tuple as an array: items (the first required ones always; of the others,
// those before the first that is absent), then the elements of rest (a slice, or nil).
func EncodeTuple(required int, rest any, items ...any) ([]byte, error) {
	var elements []any
	for i, item := range items {
		if i >= required && absent(item) {
			break
		}
		elements = append(elements, item)
	}
	if more := reflect.ValueOf(rest); rest != nil && more.Len() > 0 {
		if len(elements) < len(items) {
			return nil, errors.New("toolgen: a tuple with elements past an absent one")
		}
		for i := range more.Len() {
			elements = append(elements, more.Index(i).Interface())
		}
	}
	if elements == nil {
		return []byte("[]"), nil
	}
	return Encode(elements)
}

// DecodeTuple reads an array of at least required elements into items (pointers), and the
// elements past them into rest (a pointer to a slice), or, when rest is nil, refuses them.
func DecodeTuple(data []byte, required int, rest any, items ...any) error {
	var elements []json.RawMessage
	if err := Decode(data, &elements); err != nil || elements == nil {
		return err
	}
	if len(elements) < required {
		return fmt.Errorf("toolgen: %d elements, at least %d expected", len(elements), required)
	}
	if len(elements) > len(items) && rest == nil {
		return fmt.Errorf("toolgen: %d elements, at most %d expected", len(elements), len(items))
	}
	for i, item := range items[:min(len(items), len(elements))] {
		if err := Decode(elements[i], item); err != nil {
			return fmt.Errorf("element %d: %w", i, err)
		}
	}
	if len(elements) <= len(items) {
		return nil
	}
	more, err := json.Marshal(elements[len(items):])
	if err != nil {
		return err
	}
	return Decode(more, rest)
}

// A Branch is one branch of a union whose values are U: the value of the union's
// discriminating member that names it ("" when there is none), and how to read it.
type Branch[U any] struct {
	tag  string
	read func([]byte) (U, error)
}

// BranchOf is the branch named tag, read as a T and held as the U that hold makes of it.
func BranchOf[T, U any](tag string, hold func(T) U) Branch[U] {
	return Branch[U]{tag: tag, read: func(data []byte) (U, error) {
		var value T
		if err := Decode(data, &value); err != nil {
			var none U
			return none, err
		}
		return hold(value), nil
	}}
}

// DecodeUnion reads a union's value into into: the branch the member tag names, or, without a
// tag, the first branch the value reads as (the generated code lists the narrowest first, and
// the server has checked the value against the union's schema before it is read).
func DecodeUnion[U any](data []byte, into *U, tag string, branches ...Branch[U]) error {
	if tag != "" {
		var members map[string]json.RawMessage
		if err := Decode(data, &members); err != nil {
			return err
		}
		var name string
		if err := Decode(members[tag], &name); err != nil || members[tag] == nil {
			return fmt.Errorf("toolgen: member %q names no branch", tag)
		}
		for _, b := range branches {
			if b.tag == name {
				value, err := b.read(data)
				if err == nil {
					*into = value
				}
				return err
			}
		}
		return fmt.Errorf("toolgen: member %q names no branch: %q", tag, name)
	}
	var first error
	for _, b := range branches {
		value, err := b.read(data)
		if err == nil {
			*into = value
			return nil
		}
		first = cmp.Or(first, err)
	}
	return fmt.Errorf("toolgen: the value is none of the union's branches: %w", first)
}

// EncodeUnion writes the branch a union holds; a union that holds none is an error.
func EncodeUnion(value any) ([]byte, error) {
	if value == nil {
		return nil, errors.New("toolgen: a union that holds no value")
	}
	return Encode(value)
}

// -- stdio ------------------------------------------------------------------------------------

// ServeStdio serves s over stdin and stdout until stdin ends or ctx is done. Unlike the SDK's
// stdio transport, which ends the session at the first line it cannot decode, every line is
// answered as toolgen's Python runtime answers it: malformed JSON with -32700 and id null;
// anything else that is no JSON-RPC request, an id the SDK would not echo exactly, an id still
// in flight and a line over 64 MiB with -32600; a batch with -32600 unless the session is at
// 2025-03-26, which takes batches; a revision the SDK does not know with -32022. At most 64
// calls run at once (reading waits), and after stdin ends running calls get 2 seconds to
// answer.
func ServeStdio(ctx context.Context, s *mcp.Server) error {
	err := s.Run(ctx, &stdioTransport{in: os.Stdin, out: os.Stdout})
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

const (
	maxInFlight   = 64
	shutdownGrace = 2 * time.Second
)

type stdioTransport struct {
	in  io.Reader
	out io.Writer
}

func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{
		out:      t.out,
		incoming: make(chan jsonrpc.Message),
		done:     make(chan struct{}),
		pending:  map[jsonrpc.ID]*batch{},
	}
	c.changed = sync.NewCond(&c.mu)
	go c.read(bufio.NewReaderSize(t.in, 64<<10))
	return c, nil
}

type stdioConn struct {
	out      io.Writer
	writing  sync.Mutex
	incoming chan jsonrpc.Message // closed when stdin has ended, after readErr is set
	readErr  error
	done     chan struct{} // closed by Close
	revision string        // the session's, from its initialize (the reader's own)

	mu      sync.Mutex
	changed *sync.Cond            // signalled when pending shrinks or the connection closes
	pending map[jsonrpc.ID]*batch // the calls in flight, with the batch each belongs to
	closed  bool
}

// A batch collects the answers to one batch of requests, written as one array.
type batch struct {
	answers [][]byte
	waiting int
}

func (c *stdioConn) SessionID() string { return "" }

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case msg, ok := <-c.incoming:
		if !ok {
			return nil, c.readErr
		}
		return msg, nil
	case <-c.done:
		return nil, io.EOF
	}
}

func (c *stdioConn) Write(_ context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	if response, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		b := c.pending[response.ID]
		delete(c.pending, response.ID)
		if b != nil {
			b.answers = append(b.answers, data)
			b.waiting--
		}
		c.changed.Broadcast()
		c.mu.Unlock()
		if b != nil && b.waiting > 0 {
			return nil
		}
		if b != nil {
			data = joined(b.answers)
		}
	}
	return c.writeLine(data)
}

func joined(answers [][]byte) []byte {
	return append(append([]byte{'['}, bytes.Join(answers, []byte{','})...), ']')
}

func (c *stdioConn) writeLine(data []byte) error {
	c.writing.Lock()
	defer c.writing.Unlock()
	_, err := c.out.Write(append(data, '\n'))
	return err
}

func (c *stdioConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		close(c.done)
		c.changed.Broadcast()
	}
	return nil
}

func (c *stdioConn) read(in *bufio.Reader) {
	var err error
	for err == nil {
		var line []byte
		var tooLong bool
		line, tooLong, err = readLine(in)
		if tooLong {
			c.refuse(jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: a message is at most %d bytes", maxMessage))
			continue
		}
		if !c.handle(bytes.TrimSpace(line)) {
			return
		}
	}
	c.wait(func() bool { return len(c.pending) == 0 }, shutdownGrace)
	c.readErr = err
	close(c.incoming)
}

// wait waits until ready (called with c.mu held) or the connection closes; at most limit
// when limit > 0. It reports whether the connection is still open.
func (c *stdioConn) wait(ready func() bool, limit time.Duration) bool {
	late := false
	if limit > 0 {
		timer := time.AfterFunc(limit, func() {
			c.mu.Lock()
			late = true
			c.changed.Broadcast()
			c.mu.Unlock()
		})
		defer timer.Stop()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for !ready() && !c.closed && !late {
		c.changed.Wait()
	}
	return !c.closed
}

// readLine reads one line of at most maxMessage bytes; a longer one is skipped to its end.
func readLine(in *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := in.ReadSlice('\n')
		if !tooLong && len(line)+len(chunk) > maxMessage {
			tooLong, line = true, nil
		}
		if !tooLong {
			line = append(line, chunk...)
		}
		if err != bufio.ErrBufferFull {
			return line, tooLong, err
		}
	}
}

// handle passes one line on, or answers it; false when the connection is closed.
func (c *stdioConn) handle(line []byte) bool {
	if len(line) == 0 {
		return true
	}
	if line[0] == '[' {
		return c.batch(line)
	}
	msg, answer := c.check(line)
	if answer != nil {
		_ = c.writeLine(answer)
		return true
	}
	if request, ok := msg.(*jsonrpc.Request); ok && request.IsCall() {
		if !c.wait(func() bool { return len(c.pending) < maxInFlight }, 0) {
			return false
		}
		c.mu.Lock()
		_, inUse := c.pending[request.ID]
		if !inUse {
			c.pending[request.ID] = nil
		}
		c.mu.Unlock()
		if inUse {
			_ = c.writeLine(errorMessage(request.ID.Raw(), jsonrpc.CodeInvalidRequest, "Invalid Request: this id is in use", nil))
			return true
		}
	}
	return c.deliver(msg)
}

// check decodes one message, or gives the answer that refuses it.
func (c *stdioConn) check(line []byte) (jsonrpc.Message, []byte) {
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		if !json.Valid(line) {
			return nil, errorMessage(nil, jsonrpc.CodeParseError, "Parse error", nil)
		}
		var id any
		if readable, ok := readID(line); ok && readable != nil {
			id = readable
		}
		return nil, errorMessage(id, jsonrpc.CodeInvalidRequest, "Invalid Request", nil)
	}
	request, ok := msg.(*jsonrpc.Request)
	if !ok {
		return msg, nil // a response to a request of the server's
	}
	if _, readable := readID(line); !readable {
		return nil, errorMessage(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: an id is a string or an integer", nil)
	}
	if !request.IsCall() {
		return msg, nil
	}
	if request.Method == "initialize" {
		var params struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = Decode(request.Params, &params)
		c.revision = negotiated(params.ProtocolVersion)
	} else if rev, ok := unknownRevision(request.Params); ok {
		data, _ := json.Marshal(map[string]any{"supported": mcp.SupportedProtocolVersions(), "requested": rev})
		return nil, errorMessage(request.ID.Raw(), mcp.CodeUnsupportedProtocolVersion, "unsupported protocol version", data)
	}
	return msg, nil
}

// unknownRevision is the protocol revision a request's _meta names when the SDK does not
// know it. The SDK refuses an unknown one from 2026-07-28 on and serves an older one as if
// the request named none; toolgen's runtimes refuse both (-32022).
func unknownRevision(params json.RawMessage) (string, bool) {
	if !bytes.Contains(params, []byte(mcp.MetaKeyProtocolVersion)) {
		return "", false
	}
	var fields struct {
		Meta struct {
			Revision *string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
	if Decode(params, &fields) != nil || fields.Meta.Revision == nil {
		return "", false
	}
	rev := *fields.Meta.Revision
	return rev, !slices.Contains(mcp.SupportedProtocolVersions(), rev)
}

// readID is the id of a message as written, when the SDK will echo it exactly: absent (nil),
// a string, or an integer within ±2^53 (the SDK reads ids as float64). null, a fraction or an
// object are no id (JSON-RPC), and a larger integer would come back changed.
func readID(line []byte) (json.RawMessage, bool) {
	var head struct {
		ID json.RawMessage `json:"id"`
	}
	if Decode(line, &head) != nil {
		return nil, false
	}
	id := head.ID
	switch {
	case id == nil:
		return nil, true
	case id[0] == '"':
		return id, true
	case !safeInteger.Match(id):
		return nil, false
	}
	digits := strings.TrimPrefix(string(id), "-")
	return id, len(digits) < 16 || digits <= "9007199254740991"
}

var safeInteger = regexp.MustCompile(`^-?(0|[1-9][0-9]{0,15})$`)

func (c *stdioConn) deliver(msg jsonrpc.Message) bool {
	select {
	case c.incoming <- msg:
		return true
	case <-c.done:
		return false
	}
}

// batch runs a batch in a 2025-03-26 session (one array answers every request in it, and each
// member that is not a message) and refuses it anywhere else.
func (c *stdioConn) batch(line []byte) bool {
	var members []json.RawMessage
	if err := json.Unmarshal(line, &members); err != nil {
		_, answer := c.check(line) // not JSON: -32700
		if answer == nil {
			answer = errorMessage(nil, jsonrpc.CodeInvalidRequest, "Invalid Request", nil)
		}
		_ = c.writeLine(answer)
		return true
	}
	if c.revision != batchRevision || len(members) == 0 {
		c.refuse(jsonrpc.CodeInvalidRequest, "Invalid Request: this session takes no JSON-RPC batches")
		return true
	}
	b := &batch{}
	var messages []jsonrpc.Message
	c.mu.Lock()
	for _, member := range members {
		msg, answer := c.check(member)
		if answer != nil {
			b.answers = append(b.answers, answer)
			continue
		}
		if request, ok := msg.(*jsonrpc.Request); ok && request.IsCall() {
			if _, inUse := c.pending[request.ID]; inUse {
				b.answers = append(b.answers, errorMessage(request.ID.Raw(), jsonrpc.CodeInvalidRequest, "Invalid Request: this id is in use", nil))
				continue
			}
			c.pending[request.ID] = b
			b.waiting++
		}
		messages = append(messages, msg)
	}
	done := b.waiting == 0
	c.mu.Unlock()
	if done && len(b.answers) > 0 {
		_ = c.writeLine(joined(b.answers))
	}
	for _, msg := range messages {
		if !c.deliver(msg) {
			return false
		}
	}
	return true
}

func (c *stdioConn) refuse(code int64, text string) {
	_ = c.writeLine(errorMessage(nil, code, text, nil))
}

func errorMessage(id any, code int64, text string, data json.RawMessage) []byte {
	message, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"error":   &jsonrpc.Error{Code: code, Message: text, Data: data},
	})
	return message
}

// -- the client -------------------------------------------------------------------------------

// DriftPolicy says what a Client does when the server's tools differ from the spec.
type DriftPolicy int

const (
	// DriftWarn logs the differences (slog) and calls the tools.
	DriftWarn DriftPolicy = iota
	// DriftFail fails every call with a *DriftError.
	DriftFail
	// DriftIgnore calls the tools.
	DriftIgnore
)

// ClientOptions configure a Client; the zero value warns about drift through slog.Default().
type ClientOptions struct {
	Drift  DriftPolicy
	Logger *slog.Logger
}

// Drift is one way the server's tools differ from the spec: a tool it does not list (Field
// "missing") or lists more than once ("name"), a field of its definition ("title",
// "description", "inputSchema", "outputSchema", "annotations", "_meta"), or "safety": the spec
// calls the tool safe, the server hints it may destroy data (it is never called).
type Drift struct {
	Tool    string
	Field   string
	Message string
}

func (d Drift) String() string { return d.Tool + ": " + d.Message }

// DriftError is the server's tools differing from the spec, as a Client refuses a call for it.
type DriftError struct {
	Drift []Drift
}

func (e *DriftError) Error() string {
	lines := make([]string, len(e.Drift))
	for i, d := range e.Drift {
		lines[i] = d.String()
	}
	return fmt.Sprintf("the server's tools differ from the spec (%d): %s", len(e.Drift), strings.Join(lines, "; "))
}

// ToolCallError is a call the server answered with isError; Text is the result's text.
type ToolCallError struct {
	Tool   string
	Text   string
	Result *mcp.CallToolResult
}

func (e *ToolCallError) Error() string { return fmt.Sprintf("tool %q failed: %s", e.Tool, e.Text) }

// ResultError is a result the client cannot take as the tool's output: its value breaks the
// output schema or does not decode into the output type.
type ResultError struct {
	Tool string
	Err  error
}

func (e *ResultError) Error() string {
	return fmt.Sprintf("tool %q returned a result that is not its output: %v", e.Tool, e.Err)
}

func (e *ResultError) Unwrap() error { return e.Err }

// Client calls the spec's tools through a connected SDK session. Before the first call it
// compares the server's tools/list with the spec for the negotiated revision (CheckDrift); a
// tool the spec calls safe that the server hints may destroy data is never called.
type Client struct {
	session *mcp.ClientSession
	spec    *Spec
	policy  DriftPolicy
	logger  *slog.Logger
	mu      sync.Mutex
	drift   []Drift
	checked bool
}

// NewClient makes a Client of spec's tools calling through session, with the options given
// (none: warn about drift through slog.Default()).
func NewClient(session *mcp.ClientSession, spec *Spec, opts ...ClientOptions) *Client {
	c := &Client{session: session, spec: spec, logger: slog.Default()}
	for _, o := range opts {
		c.policy = o.Drift
		if o.Logger != nil {
			c.logger = o.Logger
		}
	}
	return c
}

func (c *Client) revision() string {
	if result := c.session.InitializeResult(); result != nil {
		return result.ProtocolVersion
	}
	return ""
}

// CheckDrift compares the server's tools/list with the spec now (the first call does it
// otherwise) and acts as the policy says; it returns the differences.
func (c *Client) CheckDrift(ctx context.Context) ([]Drift, error) {
	if err := c.spec.load(); err != nil {
		return nil, err
	}
	var listed []*mcp.Tool
	params := &mcp.ListToolsParams{}
	for range maxPages {
		page, err := c.session.ListTools(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("toolgen: listing the server's tools: %w", err)
		}
		listed = append(listed, page.Tools...)
		if page.NextCursor == "" {
			break
		}
		params = &mcp.ListToolsParams{Cursor: page.NextCursor}
	}
	drift, err := compare(c.spec.listing(c.revision()), c.spec.names, listed)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.drift, c.checked = drift, true
	c.mu.Unlock()
	if len(drift) > 0 && c.policy == DriftWarn {
		c.logger.Warn((&DriftError{Drift: drift}).Error())
	}
	return drift, nil
}

// Result calls tool with in: the SDK's result (for a tool without an output schema);
// isError is a *ToolCallError.
func (c *Client) Result(ctx context.Context, tool string, in any) (*mcp.CallToolResult, error) {
	c.mu.Lock()
	checked := c.checked
	c.mu.Unlock()
	if !checked {
		if _, err := c.CheckDrift(ctx); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	var refused []Drift
	for _, d := range c.drift {
		if d.Field == "safety" && d.Tool == tool || c.policy == DriftFail {
			refused = append(refused, d)
		}
	}
	c.mu.Unlock()
	if len(refused) > 0 {
		return nil, &DriftError{Drift: refused}
	}
	arguments, err := Encode(in)
	if err != nil {
		return nil, err
	}
	result, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(arguments)})
	if err != nil {
		return nil, err
	}
	if result.IsError {
		return nil, &ToolCallError{Tool: tool, Text: textOf(result), Result: result}
	}
	return result, nil
}

// Call calls tool with in and returns its output: the structured value (unwrapped where the
// revision wraps it; before 2025-06-18 read from the text), checked against the output schema.
func Call[Out any](ctx context.Context, c *Client, tool string, in any) (Out, error) {
	var out Out
	result, err := c.Result(ctx, tool, in)
	if err != nil {
		return out, err
	}
	data, err := c.value(tool, result)
	if err == nil {
		err = Decode(data, &out)
	}
	if err != nil {
		return out, &ResultError{Tool: tool, Err: err}
	}
	return out, nil
}

// value is the JSON of a result's value, checked against the tool's output schema.
func (c *Client) value(tool string, result *mcp.CallToolResult) ([]byte, error) {
	t := c.spec.schemas[tool]
	if err := t.compile(); err != nil {
		return nil, err
	}
	definition := c.spec.listing(c.revision()).byName[tool]
	text := textOf(result)
	var data []byte
	switch {
	case !definition.structured && t.stringOutput:
		data, _ = Encode(text)
	case !definition.structured:
		data = []byte(text)
	case result.StructuredContent == nil && strings.TrimSpace(text) != "null":
		// (the SDK reads structuredContent null as none: the text says which it was)
		return nil, errors.New("the result has no structuredContent")
	default:
		data = exact(result.StructuredContent, text)
		if definition.wrapped {
			var wrapper struct {
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(data, &wrapper); err != nil || wrapper.Result == nil {
				return nil, errors.New(`the result is not wrapped as {"result": ...}`)
			}
			data = wrapper.Result
		}
	}
	value, err := parse(data)
	if err != nil {
		return nil, err
	}
	if err := t.outputSchema.Validate(value); err != nil {
		return nil, errors.New(problems(err))
	}
	if integral(value, data) {
		return json.Marshal(value)
	}
	return data, nil
}

// exact is the JSON of structuredContent with its numbers as the server wrote them: the SDK
// decodes it with every number a float64 (an integer beyond 2^53 rounded), so the text, which
// toolgen's servers write as the same JSON, is taken when it means the same.
func exact(structured any, text string) []byte {
	var fromText any
	if json.Unmarshal([]byte(text), &fromText) == nil && sameJSON(fromText, structured) {
		return []byte(text)
	}
	data, _ := Encode(structured)
	return data
}

func textOf(result *mcp.CallToolResult) string {
	var b strings.Builder
	for _, block := range result.Content {
		if text, ok := block.(*mcp.TextContent); ok {
			b.WriteString(text.Text)
		}
	}
	return b.String()
}

// compare lists how the listed tools differ from the spec's definitions (l, for the
// negotiated revision): both read the way the SDK reads a listing, so a difference the SDK
// would not show is no drift. Tools the server lists beyond the spec are not drift.
func compare(l *listing, names []string, listed []*mcp.Tool) ([]Drift, error) {
	byName := map[string][]*mcp.Tool{}
	for _, tool := range listed {
		byName[tool.Name] = append(byName[tool.Name], tool)
	}
	var found []Drift
	for _, name := range names {
		var spec mcp.Tool
		if err := json.Unmarshal(l.byName[name].raw, &spec); err != nil {
			return nil, err
		}
		entries := byName[name]
		switch {
		case len(entries) == 0:
			found = append(found, Drift{name, "missing", "the server does not list this tool"})
			continue
		case len(entries) > 1:
			found = append(found, Drift{name, "name", fmt.Sprintf("the server lists this tool %d times", len(entries))})
		}
		for _, served := range entries {
			found = append(found, fields(&spec, served)...)
		}
		destroys := false
		for _, served := range entries {
			destroys = destroys || mayDestroy(served.Annotations)
		}
		if !mayDestroy(spec.Annotations) && destroys {
			found = append(found, Drift{name, "safety", "the spec says it is safe to call, the server hints it may destroy data: the client does not call it"})
		}
	}
	return found, nil
}

// mayDestroy is the rule of every toolgen client and of verify: a tool is safe to call only by
// readOnlyHint true or destructiveHint false; anything else reads as the MCP default.
func mayDestroy(hints *mcp.ToolAnnotations) bool {
	return hints == nil || !hints.ReadOnlyHint && (hints.DestructiveHint == nil || *hints.DestructiveHint)
}

func fields(spec, served *mcp.Tool) []Drift {
	var found []Drift
	check := func(field string, want, got any, wantSet, gotSet bool) {
		if wantSet == gotSet && (!wantSet || sameJSON(want, got)) {
			return
		}
		message := fmt.Sprintf("`%s` differs from the spec", field)
		switch {
		case !gotSet:
			message = fmt.Sprintf("`%s` is missing (the spec declares one)", field)
		case !wantSet:
			message = fmt.Sprintf("`%s` is declared by the server, not by the spec", field)
		}
		found = append(found, Drift{spec.Name, field, message})
	}
	check("title", spec.Title, served.Title, spec.Title != "", served.Title != "")
	check("description", spec.Description, served.Description, spec.Description != "", served.Description != "")
	check("inputSchema", spec.InputSchema, served.InputSchema, spec.InputSchema != nil, served.InputSchema != nil)
	check("outputSchema", spec.OutputSchema, served.OutputSchema, spec.OutputSchema != nil, served.OutputSchema != nil)
	check("annotations", plain(spec.Annotations), plain(served.Annotations), spec.Annotations != nil, served.Annotations != nil)
	meta := map[string]any{} // only the keys the spec declares: others are free
	for key := range spec.Meta {
		if value, ok := served.Meta[key]; ok {
			meta[key] = value
		}
	}
	check("_meta", map[string]any(spec.Meta), meta, len(spec.Meta) > 0, len(meta) > 0)
	return found
}

// plain is a value as JSON data (maps, slices, float64...), to compare by meaning.
func plain(value any) any {
	data, err := json.Marshal(value)
	if err != nil {
		return nil
	}
	var out any
	_ = json.Unmarshal(data, &out)
	return out
}

// sameJSON reports whether two JSON values (as encoding/json reads them) are equal; object
// member order aside, numbers by value.
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for key, value := range x {
			other, ok := y[key]
			if !ok || !sameJSON(value, other) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}
