// Command safety_client calls count_notes (read-only in the spec) through the generated Client
// against a stand-in server whose listing gives count_notes the annotations in argv[2] (a JSON
// array: one listing entry per element), and prints what was called, the error, and the drift.
//
//	safety_client TOOLS_FILE ANNOTATIONS_JSON
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"notes"
)

const revision = "2025-11-25"

func main() {
	listing, err := os.ReadFile(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	var hints []json.RawMessage
	if err := json.Unmarshal([]byte(os.Args[2]), &hints); err != nil {
		log.Fatal(err)
	}
	var result struct {
		Tools []map[string]json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(listing, &result); err != nil {
		log.Fatal(err)
	}
	var tools []map[string]json.RawMessage
	for _, tool := range result.Tools {
		if string(tool["name"]) != `"count_notes"` {
			tools = append(tools, tool)
			continue
		}
		for _, annotations := range hints {
			entry := map[string]json.RawMessage{}
			for key, value := range tool {
				entry[key] = value
			}
			entry["annotations"] = annotations
			tools = append(tools, entry)
		}
	}
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	var called []string
	go standIn(toServer, fromServer, tools, &called)
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "toolgen-go-test", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.IOTransport{Reader: toClient, Writer: fromClient}, &mcp.ClientSessionOptions{ProtocolVersion: revision})
	if err != nil {
		log.Fatal(err)
	}
	c := notes.NewClient(session, notes.ClientOptions{Drift: notes.DriftIgnore})
	report := map[string]any{"error": nil, "drift": [][]string{}}
	_, err = c.CountNotes(ctx, notes.CountNotesInput{})
	var drift *notes.DriftError
	switch {
	case errors.As(err, &drift):
		report["error"] = "DriftError"
	case err != nil:
		report["error"] = err.Error()
	}
	found, _ := c.CheckDrift(ctx)
	pairs := [][]string{}
	for _, d := range found {
		pairs = append(pairs, []string{d.Tool, d.Field})
	}
	report["drift"], report["called"] = pairs, append([]string{}, called...)
	if err := json.NewEncoder(os.Stdout).Encode(report); err != nil {
		log.Fatal(err)
	}
}

// standIn answers the client's requests: initialize, tools/list with tools, and tools/call
// (recorded in called).
func standIn(in io.Reader, out io.Writer, tools []map[string]json.RawMessage, called *[]string) {
	lines := bufio.NewScanner(in)
	for lines.Scan() {
		var request struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if err := json.Unmarshal(lines.Bytes(), &request); err != nil || request.ID == nil {
			continue // a notification
		}
		var result any
		switch request.Method {
		case "initialize":
			result = map[string]any{
				"protocolVersion": revision,
				"capabilities":    map[string]any{"tools": map[string]any{}},
				"serverInfo":      map[string]any{"name": "stand-in", "version": "1"},
			}
		case "tools/list":
			result = map[string]any{"tools": tools}
		case "tools/call":
			*called = append(*called, request.Params.Name)
			result = map[string]any{"content": []any{}, "structuredContent": map[string]any{"result": 1}}
		default:
			result = map[string]any{}
		}
		answer, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": request.ID, "result": result})
		if _, err := out.Write(append(answer, '\n')); err != nil {
			return
		}
	}
}
