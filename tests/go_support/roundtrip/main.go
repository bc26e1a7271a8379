// Command roundtrip reads JSON lines {"type": NAME, "value": VALUE}, decodes each value into
// the notes type NAME and writes it back: one line {"value": ...} or {"error": ...} each.
package main

import (
	"bufio"
	"encoding/json"
	"log"
	"os"

	"notes"
)

// types makes a value of each notes type by its name.
var types = map[string]func() any{
	"Note":             func() any { return new(notes.Note) },
	"NoteId":           func() any { return new(notes.NoteId) },
	"Tag":              func() any { return new(notes.Tag) },
	"TagTree":          func() any { return new(notes.TagTree) },
	"CreateNoteInput":  func() any { return new(notes.CreateNoteInput) },
	"CreateNoteOutput": func() any { return new(notes.CreateNoteOutput) },
	"GetNoteInput":     func() any { return new(notes.GetNoteInput) },
	"GetNoteOutput":    func() any { return new(notes.GetNoteOutput) },
	"ListNotesInput":   func() any { return new(notes.ListNotesInput) },
	"ListNotesOutput":  func() any { return new(notes.ListNotesOutput) },
	"CountNotesInput":  func() any { return new(notes.CountNotesInput) },
	"CountNotesOutput": func() any { return new(notes.CountNotesOutput) },
	"DeleteNoteInput":  func() any { return new(notes.DeleteNoteInput) },
	"DeleteNoteOutput": func() any { return new(notes.DeleteNoteOutput) },
	"TagTreeInput":     func() any { return new(notes.TagTreeInput) },
	"TagTreeOutput":    func() any { return new(notes.TagTreeOutput) },
}

func main() {
	lines := bufio.NewScanner(os.Stdin)
	lines.Buffer(nil, 1<<20)
	out := json.NewEncoder(os.Stdout)
	for lines.Scan() {
		var item struct {
			Type  string          `json:"type"`
			Value json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal(lines.Bytes(), &item); err != nil {
			log.Fatal(err)
		}
		make, ok := types[item.Type]
		if !ok {
			log.Fatalf("no type %s", item.Type)
		}
		value := make()
		answer := map[string]any{}
		if err := json.Unmarshal(item.Value, value); err != nil {
			answer["error"] = err.Error()
		} else {
			answer["value"] = value
		}
		if err := out.Encode(answer); err != nil {
			log.Fatal(err)
		}
	}
	if err := lines.Err(); err != nil {
		log.Fatal(err)
	}
}
