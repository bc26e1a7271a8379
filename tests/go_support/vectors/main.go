// Command vectors runs the target vectors against the generated packages. The tests print one
// file beside this one per vector set (set_<name>.go), which registers the set's handlers,
// client calls and types.
//
//	vectors serve SET                  serve SET over stdio: each tool answers its first output
//	vectors roundtrip                  read JSON lines {"type": "SET.NAME", "value": VALUE}
//	                                   into type NAME of SET, write each back as one line
//	                                   {"value": ...} or {"error": ...}
//	vectors client SET COMMAND ARGS... call every tool of SET (each with its first valid
//	                                   input) through the generated Client against the server
//	                                   COMMAND, print what each call returned as one JSON object
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// set is what the printed file of a vector set registers.
type set struct {
	serve func(ctx context.Context) error
	calls func(ctx context.Context, session *mcp.ClientSession, results map[string]any) error
}

var (
	sets  = map[string]set{}
	types = map[string]func() any{}
)

// register makes the type T known to roundtrip as name.
func register[T any](name string) {
	types[name] = func() any { return new(T) }
}

// call reads arguments into In, calls method with them and keeps its result under tool.
func call[In, Out any](ctx context.Context, results map[string]any, tool, arguments string, method func(context.Context, In) (Out, error)) error {
	var in In
	if err := json.Unmarshal([]byte(arguments), &in); err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	out, err := method(ctx, in)
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	results[tool] = out
	return nil
}

func main() {
	var err error
	switch {
	case len(os.Args) == 3 && os.Args[1] == "serve":
		err = serve(os.Args[2])
	case len(os.Args) == 2 && os.Args[1] == "roundtrip":
		err = roundtrip()
	case len(os.Args) > 3 && os.Args[1] == "client":
		err = client(os.Args[2], os.Args[3:])
	default:
		err = errors.New("usage: vectors serve SET | vectors roundtrip | vectors client SET COMMAND [ARG ...]")
	}
	if err != nil {
		log.Fatal(err)
	}
}

func lookup(name string) (set, error) {
	found, ok := sets[name]
	if !ok {
		return set{}, fmt.Errorf("no set %s", name)
	}
	return found, nil
}

func serve(name string) error {
	found, err := lookup(name)
	if err != nil {
		return err
	}
	return found.serve(context.Background())
}

func roundtrip() error {
	lines := bufio.NewScanner(os.Stdin)
	lines.Buffer(nil, 1<<24)
	out := json.NewEncoder(os.Stdout)
	for lines.Scan() {
		var item struct {
			Type  string          `json:"type"`
			Value json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal(lines.Bytes(), &item); err != nil {
			return err
		}
		newValue, ok := types[item.Type]
		if !ok {
			return fmt.Errorf("no type %s", item.Type)
		}
		value := newValue()
		answer := map[string]any{}
		if err := json.Unmarshal(item.Value, value); err != nil {
			answer["error"] = err.Error()
		} else {
			answer["value"] = value
		}
		if err := out.Encode(answer); err != nil {
			return err
		}
	}
	return lines.Err()
}

func client(name string, command []string) error {
	found, err := lookup(name)
	if err != nil {
		return err
	}
	ctx := context.Background()
	sdk := mcp.NewClient(&mcp.Implementation{Name: "toolgen-go-vectors", Version: "1.0.0"}, nil)
	transport := &mcp.CommandTransport{Command: exec.Command(command[0], command[1:]...)}
	session, err := sdk.Connect(ctx, transport, nil)
	if err != nil {
		return err
	}
	defer session.Close()
	results := map[string]any{}
	if err := found.calls(ctx, session, results); err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(results)
}
