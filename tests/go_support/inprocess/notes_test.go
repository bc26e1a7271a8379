// The generated notes package in process: its types' JSON, and its tools on an SDK server
// connected to an SDK client over in-memory transports.
package inprocess

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"notes"
)

// handlers answer every tool from fixed values, or fail as the test says.
type handlers struct {
	fail   error // returned by every handler when set
	panics bool  // every handler panics
	seen   notes.ListNotesInput
	output notes.Note // what create_note and get_note return
}

func (h *handlers) result() error {
	if h.panics {
		panic("secret internals")
	}
	return h.fail
}

func (h *handlers) CreateNote(context.Context, notes.CreateNoteInput) (notes.Note, error) {
	return h.output, h.result()
}

func (h *handlers) GetNote(context.Context, notes.GetNoteInput) (notes.Note, error) {
	return h.output, h.result()
}

func (h *handlers) ListNotes(_ context.Context, in notes.ListNotesInput) (notes.ListNotesOutput, error) {
	h.seen = in
	return notes.ListNotesOutput{}, h.result()
}

func (h *handlers) CountNotes(context.Context, notes.CountNotesInput) (notes.CountNotesOutput, error) {
	return 0, h.result()
}

func (h *handlers) DeleteNote(context.Context, notes.DeleteNoteInput) (notes.DeleteNoteOutput, error) {
	return notes.DeleteNoteOutput{}, h.result()
}

func (h *handlers) TagTree(context.Context, notes.TagTreeInput) (notes.TagTree, error) {
	return notes.TagTree{Tag: "home"}, h.result()
}

// connect serves h (and an echo tool added by hand) and returns a connected client session.
func connect(t *testing.T, h *handlers, revision string) *mcp.ClientSession {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1.0.0"}, nil)
	notes.RegisterTools(server, h)
	type echo struct {
		Text string `json:"text"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echo) (*mcp.CallToolResult, echo, error) {
		return nil, in, nil
	})
	serverSide, clientSide := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := server.Connect(ctx, serverSide, nil); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, clientSide, &mcp.ClientSessionOptions{ProtocolVersion: revision})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = session.Close() })
	return session
}

var revisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

func TestToolsAddedByHandAreListedAfterTheSpecsAndAreNoDrift(t *testing.T) {
	for _, revision := range revisions {
		session := connect(t, &handlers{}, revision)
		listed, err := session.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range listed.Tools {
			names = append(names, tool.Name)
		}
		want := []string{"create_note", "get_note", "list_notes", "count_notes", "delete_note", "tag_tree", "echo"}
		if !slices.Equal(names, want) {
			t.Errorf("%s: listed %v, want %v", revision, names, want)
		}
		drift, err := notes.NewClient(session).CheckDrift(context.Background())
		if err != nil || len(drift) > 0 {
			t.Errorf("%s: drift %v, %v", revision, drift, err)
		}
		echoed, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
		if err != nil || echoed.IsError {
			t.Errorf("%s: echo: %v %v", revision, echoed, err)
		}
	}
}

func TestAHandlerSeesTheInputsDefaultsFilledIn(t *testing.T) {
	h := &handlers{}
	c := notes.NewClient(connect(t, h, "2025-11-25"))
	if _, err := c.ListNotes(context.Background(), notes.ListNotesInput{}); err != nil {
		t.Fatal(err)
	}
	if h.seen.Limit == nil || *h.seen.Limit != 20 {
		t.Errorf("limit %v, want the default 20", h.seen.Limit)
	}
	limit := int64(3)
	if _, err := c.ListNotes(context.Background(), notes.ListNotesInput{Limit: &limit}); err != nil {
		t.Fatal(err)
	}
	if *h.seen.Limit != 3 {
		t.Errorf("limit %v, want the given 3", *h.seen.Limit)
	}
}

func TestAHandlersFailureReachesTheClientWithoutInternals(t *testing.T) {
	cases := []struct {
		name     string
		h        *handlers
		contains string // in the isError text
		wire     int64  // a JSON-RPC error code instead of isError
	}{
		{"a ToolError's message", &handlers{fail: &notes.ToolError{Message: "no such note"}}, "no such note", 0},
		{"a wrapped ToolError's message", &handlers{fail: errors.Join(errors.New("secret internals"), &notes.ToolError{Message: "no such note"})}, "no such note", 0},
		{"an empty ToolError", &handlers{fail: &notes.ToolError{}}, "Tool 'get_note' failed", 0},
		{"any other error", &handlers{fail: errors.New("secret internals")}, "internal error", 0},
		{"a panic", &handlers{panics: true}, "internal error", 0},
		{"a result the output schema refuses", &handlers{output: notes.Note{ID: "x", Title: ""}}, "does not match its output schema", 0},
		{"a JSON-RPC error", &handlers{fail: &jsonrpc.Error{Code: -32001, Message: "backend gone"}}, "", -32001},
	}
	for _, tc := range cases {
		c := notes.NewClient(connect(t, tc.h, "2025-11-25"))
		_, err := c.GetNote(context.Background(), notes.GetNoteInput{ID: "n_0000abcd"})
		var called *notes.ToolCallError
		var wire *jsonrpc.Error
		switch {
		case tc.wire != 0:
			if !errors.As(err, &wire) || wire.Code != tc.wire {
				t.Errorf("%s: got %v, want JSON-RPC error %d", tc.name, err, tc.wire)
			}
		case !errors.As(err, &called):
			t.Errorf("%s: got %v, want a ToolCallError", tc.name, err)
		case !strings.Contains(called.Text, tc.contains) || strings.Contains(called.Text, "secret"):
			t.Errorf("%s: isError text %q", tc.name, called.Text)
		}
	}
}

func TestAnUnknownToolIsAJSONRPCError(t *testing.T) {
	session := connect(t, &handlers{}, "2025-11-25")
	_, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool"})
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("got %v, want JSON-RPC error -32602", err)
	}
}

func TestArgumentsThatAreNoObjectAreAJSONRPCError(t *testing.T) {
	session := connect(t, &handlers{}, "2025-11-25")
	_, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "count_notes", Arguments: json.RawMessage(`[1]`)})
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("got %v, want JSON-RPC error -32602", err)
	}
}

func TestTheTypesReadAndWriteTheirJSON(t *testing.T) {
	// Each valid instance reads and writes back unchanged (absent stays absent, an empty
	// array stays present).
	valid := []string{
		`{"id":"n_0000abcd","title":"Groceries"}`,
		`{"id":"n_0000abcd","title":"Groceries","tags":[]}`,
		`{"id":"n_0000abcd","title":"Groceries","body":"","tags":["home"]}`,
	}
	for _, text := range valid {
		var note notes.Note
		if err := json.Unmarshal([]byte(text), &note); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		again, err := json.Marshal(note)
		if err != nil || string(again) != text {
			t.Errorf("%s came back as %s (%v)", text, again, err)
		}
	}
	refused := []string{
		`{"id":"n_0000abcd","title":"Groceries","colour":"red"}`, // closed: no such member
		`{"ID":"n_0000abcd","title":"Groceries"}`,                // names match exactly
		`{"id":"n_0000abcd","title":7}`,                          // wrong type
	}
	for _, text := range refused {
		var note notes.Note
		if err := json.Unmarshal([]byte(text), &note); err == nil {
			t.Errorf("%s was read as %+v", text, note)
		}
	}
}
