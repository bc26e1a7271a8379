// Command handwritten serves the notes tools over stdio as people write a server on the
// official Go SDK: types written by hand, mcp.AddTool with the schemas the SDK infers from
// them (and validates against), the SDK's stdio transport. For benchmarks/go_bench.py; its
// handlers do the same work as tests/go_support/notes_server's.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"slices"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type Note struct {
	ID    string   `json:"id" jsonschema:"Identifier of a note."`
	Title string   `json:"title" jsonschema:"Short title."`
	Body  *string  `json:"body,omitempty" jsonschema:"Free text."`
	Tags  []string `json:"tags,omitempty" jsonschema:"Labels for finding the note again."`
}

type CreateNoteInput struct {
	Title string   `json:"title" jsonschema:"Short title."`
	Body  *string  `json:"body,omitempty" jsonschema:"Free text."`
	Tags  []string `json:"tags,omitempty" jsonschema:"Labels for the note."`
}

type IDInput struct {
	ID string `json:"id" jsonschema:"Identifier of a note."`
}

type ListNotesInput struct {
	Tag   *string `json:"tag,omitempty" jsonschema:"A lowercase label."`
	Limit *int64  `json:"limit,omitempty" jsonschema:"Most notes to return."`
}

type CountNotesInput struct{}

type DeleteNoteOutput struct {
	Deleted bool `json:"deleted" jsonschema:"Whether a note was removed."`
}

type TagTreeInput struct {
	Root *string `json:"root,omitempty" jsonschema:"A lowercase label."`
}

type TagTree struct {
	Tag      string    `json:"tag" jsonschema:"A lowercase label."`
	Children []TagTree `json:"children,omitempty"`
}

type store struct {
	mu    sync.Mutex
	notes []Note
	next  int
}

func (s *store) createNote(_ context.Context, _ *mcp.CallToolRequest, in CreateNoteInput) (*mcp.CallToolResult, Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	note := Note{ID: fmt.Sprintf("n_%08x", s.next), Title: in.Title, Body: in.Body, Tags: in.Tags}
	s.next++
	s.notes = append(s.notes, note)
	return nil, note, nil
}

func (s *store) getNote(_ context.Context, _ *mcp.CallToolRequest, in IDInput) (*mcp.CallToolResult, Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, note := range s.notes {
		if note.ID == in.ID {
			return nil, note, nil
		}
	}
	return nil, Note{}, fmt.Errorf("no note %s", in.ID)
}

func (s *store) listNotes(_ context.Context, _ *mcp.CallToolRequest, in ListNotesInput) (*mcp.CallToolResult, []Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	limit := int64(20)
	if in.Limit != nil {
		limit = *in.Limit
	}
	found := []Note{}
	for _, note := range slices.Backward(s.notes) {
		if int64(len(found)) == limit {
			break
		}
		if in.Tag == nil || slices.Contains(note.Tags, *in.Tag) {
			found = append(found, note)
		}
	}
	return nil, found, nil
}

func (s *store) countNotes(context.Context, *mcp.CallToolRequest, CountNotesInput) (*mcp.CallToolResult, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return nil, len(s.notes), nil
}

func (s *store) deleteNote(_ context.Context, _ *mcp.CallToolRequest, in IDInput) (*mcp.CallToolResult, DeleteNoteOutput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	before := len(s.notes)
	s.notes = slices.DeleteFunc(s.notes, func(note Note) bool { return note.ID == in.ID })
	return nil, DeleteNoteOutput{Deleted: len(s.notes) < before}, nil
}

func (s *store) tagTree(_ context.Context, _ *mcp.CallToolRequest, in TagTreeInput) (*mcp.CallToolResult, TagTree, error) {
	root := "home"
	if in.Root != nil {
		root = *in.Root
	}
	return nil, TagTree{Tag: root, Children: []TagTree{{Tag: root + "-garden"}}}, nil
}

func main() {
	body := "milk"
	s := &store{notes: []Note{{ID: "n_0000abcd", Title: "Groceries", Body: &body, Tags: []string{"home"}}}}
	yes, no := true, false
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Title: "Notes", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "create_note", Title: "Create a note", Description: "Create a new note and return it.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &no, OpenWorldHint: &no}}, s.createNote)
	mcp.AddTool(server, &mcp.Tool{Name: "get_note", Title: "Get a note", Description: "Return one note by its identifier.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no}}, s.getNote)
	mcp.AddTool(server, &mcp.Tool{Name: "list_notes", Title: "List notes", Description: "List notes, newest first, optionally only those with a tag.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}}, s.listNotes)
	mcp.AddTool(server, &mcp.Tool{Name: "count_notes", Title: "Count notes", Description: "How many notes are stored.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}}, s.countNotes)
	mcp.AddTool(server, &mcp.Tool{Name: "delete_note", Title: "Delete a note", Description: "Delete a note for good.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes, IdempotentHint: true, OpenWorldHint: &no}}, s.deleteNote)
	tree := &jsonschema.Schema{ // the SDK cannot infer a recursive type's schema
		Type:     "object",
		Required: []string{"tag"},
		Properties: map[string]*jsonschema.Schema{
			"tag":      {Type: "string", Description: "A lowercase label."},
			"children": {Type: "array", Items: &jsonschema.Schema{Ref: "#"}},
		},
	}
	mcp.AddTool(server, &mcp.Tool{Name: "tag_tree", Title: "Tag tree", Description: "The tags in use, arranged as a tree by prefix.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}, OutputSchema: tree}, s.tagTree)
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, context.Canceled) {
		log.Fatal(err)
	}
}
