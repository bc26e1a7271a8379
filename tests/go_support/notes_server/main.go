// Command notes_server serves the notes tools over stdio with handlers written for the tests.
package main

import (
	"context"
	"fmt"
	"log"
	"slices"
	"sync"

	"notes"
)

// store holds the notes in memory; the note the spec's examples name is there from the start.
type store struct {
	mu    sync.Mutex
	notes []notes.Note // oldest first
	next  int
}

func (s *store) CreateNote(_ context.Context, in notes.CreateNoteInput) (notes.Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	note := notes.Note{ID: notes.NoteId(fmt.Sprintf("n_%08x", s.next)), Title: in.Title, Body: in.Body, Tags: in.Tags}
	s.next++
	s.notes = append(s.notes, note)
	return note, nil
}

func (s *store) GetNote(_ context.Context, in notes.GetNoteInput) (notes.Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, note := range s.notes {
		if note.ID == in.ID {
			return note, nil
		}
	}
	return notes.Note{}, &notes.ToolError{Message: fmt.Sprintf("no note %s", in.ID)}
}

func (s *store) ListNotes(_ context.Context, in notes.ListNotesInput) (notes.ListNotesOutput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	found := notes.ListNotesOutput{}
	for _, note := range slices.Backward(s.notes) {
		if int64(len(found)) == *in.Limit { // the runtime filled in the default
			break
		}
		if in.Tag == nil || slices.Contains(note.Tags, *in.Tag) {
			found = append(found, note)
		}
	}
	return found, nil
}

func (s *store) CountNotes(context.Context, notes.CountNotesInput) (notes.CountNotesOutput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return notes.CountNotesOutput(len(s.notes)), nil
}

func (s *store) DeleteNote(_ context.Context, in notes.DeleteNoteInput) (notes.DeleteNoteOutput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	before := len(s.notes)
	s.notes = slices.DeleteFunc(s.notes, func(note notes.Note) bool { return note.ID == in.ID })
	return notes.DeleteNoteOutput{Deleted: len(s.notes) < before}, nil
}

func (s *store) TagTree(_ context.Context, in notes.TagTreeInput) (notes.TagTree, error) {
	root := notes.Tag("home")
	if in.Root != nil {
		root = *in.Root
	}
	return notes.TagTree{Tag: root, Children: []notes.TagTree{{Tag: root + "-garden"}}}, nil
}

func main() {
	body := "milk"
	s := &store{notes: []notes.Note{{ID: "n_0000abcd", Title: "Groceries", Body: &body, Tags: []notes.Tag{"home"}}}}
	if err := notes.ServeStdio(context.Background(), s); err != nil {
		log.Fatal(err)
	}
}
