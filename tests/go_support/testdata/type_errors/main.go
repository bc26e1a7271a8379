// Mistakes in code using generated packages (notes, shop_orders, features): each line marked
// `// error:` must fail to compile (the acceptance tests build this file on its own).
package main

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"features"
	"notes"
	"shop_orders"
)

// handlers has every method, but get_note's returns another tool's output type.
type handlers struct{}

func (handlers) CreateNote(context.Context, notes.CreateNoteInput) (notes.CreateNoteOutput, error) {
	return notes.Note{}, nil
}

func (handlers) GetNote(context.Context, notes.GetNoteInput) (notes.ListNotesOutput, error) {
	return nil, nil
}

func (handlers) ListNotes(context.Context, notes.ListNotesInput) (notes.ListNotesOutput, error) {
	return nil, nil
}

func (handlers) CountNotes(context.Context, notes.CountNotesInput) (notes.CountNotesOutput, error) {
	return 0, nil
}

func (handlers) DeleteNote(context.Context, notes.DeleteNoteInput) (notes.DeleteNoteOutput, error) {
	return notes.DeleteNoteOutput{}, nil
}

func (handlers) TagTree(context.Context, notes.TagTreeInput) (notes.TagTreeOutput, error) {
	return notes.TagTree{}, nil
}

func main() {
	notes.RegisterTools(mcp.NewServer(&mcp.Implementation{Name: "x"}, nil), handlers{}) // error: wrong result type
	_ = notes.CreateNoteInput{Title: 5}                                                 // error: wrong field type
	var count notes.CountNotesOutput = notes.Note{}                                     // error: a note is no count
	_ = count
	_ = notes.GetNoteInput{ID: notes.Tag("home")}                                     // error: a Tag is no NoteId
	var status shop_orders.OrderStatus = shop_orders.PlaceOrderInputPaymentMethodCard // error: a payment method is no order status
	_ = status
	_ = []shop_orders.CancelOrderInputReason{shop_orders.OrderStatusPaid} // error: an order status is no reason
	_ = features.Shape{Value: features.TreeOutput{}}                      // error: a tree is no branch of Shape
	_ = features.ScalarsInput{Maybe: "x"}                                 // error: a nullable member is a Nullable
}
