// Command notes_client calls every notes tool through the generated Client against a server
// started over stdio, in one protocol revision, and prints what each call gave as one JSON
// object.
//
//	notes_client REVISION COMMAND ARGS...
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"notes"
)

func main() {
	if len(os.Args) < 3 {
		log.Fatal("usage: notes_client REVISION COMMAND ARGS...")
	}
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "toolgen-go-test", Version: "1.0.0"}, nil)
	transport := &mcp.CommandTransport{Command: exec.Command(os.Args[2], os.Args[3:]...)}
	session, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: os.Args[1]})
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	c := notes.NewClient(session, notes.ClientOptions{Drift: notes.DriftFail})
	report := map[string]any{"revision": session.InitializeResult().ProtocolVersion}
	record := func(name string, value any, err error) {
		if err == nil {
			report[name] = map[string]any{"value": value}
			return
		}
		kind := fmt.Sprintf("%T", err)
		var called *notes.ToolCallError
		var drift *notes.DriftError
		var result *notes.ResultError
		switch {
		case errors.As(err, &called):
			kind = "ToolCallError"
		case errors.As(err, &drift):
			kind = "DriftError"
		case errors.As(err, &result):
			kind = "ResultError"
		}
		report[name] = map[string]any{"error": kind, "message": err.Error()}
	}
	shop := []notes.Tag{"shop"}
	created, err := c.CreateNote(ctx, notes.CreateNoteInput{Title: "Milk", Tags: shop})
	record("create", created, err)
	got, err := c.GetNote(ctx, notes.GetNoteInput{ID: created.ID})
	record("get", got, err)
	tag := notes.Tag("shop")
	listed, err := c.ListNotes(ctx, notes.ListNotesInput{Tag: &tag})
	record("list", listed, err)
	count, err := c.CountNotes(ctx, notes.CountNotesInput{})
	record("count", count, err)
	root := notes.Tag("home")
	tree, err := c.TagTree(ctx, notes.TagTreeInput{Root: &root})
	record("tree", tree, err)
	deleted, err := c.DeleteNote(ctx, notes.DeleteNoteInput{ID: created.ID})
	record("delete", deleted, err)
	missing, err := c.GetNote(ctx, notes.GetNoteInput{ID: "n_0000dead"})
	record("missing", missing, err)
	invalid, err := c.GetNote(ctx, notes.GetNoteInput{ID: "not-an-id"})
	record("invalid", invalid, err)
	drift, err := c.CheckDrift(ctx)
	record("drift", drift, err)
	if err := json.NewEncoder(os.Stdout).Encode(report); err != nil {
		log.Fatal(err)
	}
}
