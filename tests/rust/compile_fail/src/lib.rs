//! Uses of the printed `notes` and `features` crates written right; each feature of this crate
//! writes one of them wrong (the line marked with its name), which must not compile.

use notes::{
    CountNotesInput, CreateNoteInput, DeleteNoteInput, DeleteNoteOutput, GetNoteInput, Handlers,
    ListNotesInput, Note, TagTree, TagTreeInput, ToolError,
};

/// A note's input: `title` is a string and required.
pub fn input() -> CreateNoteInput {
    CreateNoteInput {
        // missing_field: the line above
        #[cfg(not(any(feature = "wrong_field_type", feature = "missing_field")))]
        title: "Groceries".to_owned(),
        #[cfg(feature = "wrong_field_type")]
        title: 42, // wrong_field_type
        body: None,
        tags: None,
    }
}

/// A string enum's variants are those of the spec.
pub fn operation() -> features::ExprObjectOp {
    #[cfg(not(feature = "wrong_variant"))]
    let op = features::ExprObjectOp::Add;
    #[cfg(feature = "wrong_variant")]
    let op = features::ExprObjectOp::Subtract; // wrong_variant
    op
}

/// Handlers answer each tool's output type.
pub struct Refusing;

impl Handlers for Refusing {
    async fn create_note(&self, _input: CreateNoteInput) -> Result<Note, ToolError> {
        Err(ToolError::new("read-only"))
    }

    async fn get_note(&self, _input: GetNoteInput) -> Result<Note, ToolError> {
        Err(ToolError::new("none"))
    }

    async fn list_notes(&self, _input: ListNotesInput) -> Result<Vec<Note>, ToolError> {
        Ok(Vec::new())
    }

    #[cfg(not(feature = "wrong_result"))]
    async fn count_notes(&self, _input: CountNotesInput) -> Result<i64, ToolError> {
        Ok(0)
    }

    #[cfg(feature = "wrong_result")]
    // wrong_result: the line below
    async fn count_notes(&self, _input: CountNotesInput) -> Result<String, ToolError> {
        Ok("none".to_owned())
    }

    async fn delete_note(&self, _input: DeleteNoteInput) -> Result<DeleteNoteOutput, ToolError> {
        Ok(DeleteNoteOutput { deleted: false })
    }

    async fn tag_tree(&self, _input: TagTreeInput) -> Result<TagTree, ToolError> {
        Err(ToolError::new("no tags"))
    }
}
