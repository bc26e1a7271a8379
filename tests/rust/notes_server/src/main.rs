//! A notes server on the generated crate: handlers that keep notes in memory.

use std::sync::Mutex;

use notes::{
    CountNotesInput, CreateNoteInput, DeleteNoteInput, DeleteNoteOutput, GetNoteInput, Handlers,
    ListNotesInput, Note, TagTree, TagTreeInput, ToolError,
};

#[derive(Default)]
struct Notes {
    stored: Mutex<(u32, Vec<Note>)>,
}

impl Notes {
    fn with<T>(&self, f: impl FnOnce(&mut (u32, Vec<Note>)) -> T) -> Result<T, ToolError> {
        let mut stored = self
            .stored
            .lock()
            .map_err(|_| ToolError::internal("the notes lock is poisoned"))?;
        Ok(f(&mut stored))
    }
}

impl Handlers for Notes {
    async fn create_note(&self, input: CreateNoteInput) -> Result<Note, ToolError> {
        self.with(|(next, notes)| {
            *next += 1;
            let note = Note {
                id: format!("n_{next:08x}"),
                title: input.title,
                body: input.body,
                tags: Some(input.tags.unwrap_or_default()),
            };
            notes.push(note.clone());
            note
        })
    }

    async fn get_note(&self, input: GetNoteInput) -> Result<Note, ToolError> {
        let found = self.with(|(_, notes)| notes.iter().find(|n| n.id == input.id).cloned())?;
        found.ok_or_else(|| ToolError::new(format!("no note {}", input.id)))
    }

    async fn list_notes(&self, input: ListNotesInput) -> Result<Vec<Note>, ToolError> {
        let limit = usize::try_from(input.limit.unwrap_or(20)).unwrap_or(usize::MAX);
        self.with(|(_, notes)| {
            let tagged = |note: &&Note| match &input.tag {
                None => true,
                Some(tag) => note.tags.iter().flatten().any(|t| t == tag),
            };
            notes
                .iter()
                .rev()
                .filter(tagged)
                .take(limit)
                .cloned()
                .collect()
        })
    }

    async fn count_notes(&self, _input: CountNotesInput) -> Result<i64, ToolError> {
        let count = self.with(|(_, notes)| notes.len())?;
        i64::try_from(count).map_err(ToolError::internal)
    }

    async fn delete_note(&self, input: DeleteNoteInput) -> Result<DeleteNoteOutput, ToolError> {
        self.with(|(_, notes)| {
            let before = notes.len();
            notes.retain(|n| n.id != input.id);
            DeleteNoteOutput {
                deleted: notes.len() < before,
            }
        })
    }

    async fn tag_tree(&self, input: TagTreeInput) -> Result<TagTree, ToolError> {
        let root = input.root.unwrap_or_else(|| "home".to_owned());
        let children = self.with(|(_, notes)| {
            let mut tags: Vec<String> = notes
                .iter()
                .flat_map(|n| n.tags.iter().flatten())
                .filter(|t| t.starts_with(&format!("{root}-")))
                .cloned()
                .collect();
            tags.sort();
            tags.dedup();
            tags
        })?;
        Ok(TagTree {
            tag: root,
            children: Some(
                children
                    .into_iter()
                    .map(|tag| TagTree {
                        tag,
                        children: None,
                    })
                    .collect(),
            ),
        })
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), notes::ServeError> {
    notes::serve_stdio(Notes::default()).await
}
