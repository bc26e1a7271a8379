//! The notes tools on rmcp's `#[tool]` macros, kept in memory like the generated server's
//! handlers in the tests, for a side-by-side benchmark.

use std::sync::Mutex;

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{ErrorData, ServiceExt, schemars, tool, tool_router};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
struct Note {
    id: String,
    title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    body: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tags: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct CreateNote {
    title: String,
    body: Option<String>,
    tags: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct ById {
    id: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct ListNotes {
    tag: Option<String>,
    limit: Option<i64>,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
struct Notes {
    result: Vec<Note>,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
struct Count {
    result: i64,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
struct Deleted {
    deleted: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct TreeOf {
    root: Option<String>,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
struct TagTree {
    tag: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    children: Option<Vec<TagTree>>,
}

#[derive(Default)]
struct Server {
    stored: Mutex<(u32, Vec<Note>)>,
}

fn poisoned<T>(_: T) -> ErrorData {
    ErrorData::internal_error("the notes lock is poisoned", None)
}

#[tool_router(server_handler)]
impl Server {
    #[tool(description = "Create a new note and return it.")]
    fn create_note(
        &self,
        Parameters(input): Parameters<CreateNote>,
    ) -> Result<Json<Note>, ErrorData> {
        let mut stored = self.stored.lock().map_err(poisoned)?;
        stored.0 += 1;
        let note = Note {
            id: format!("n_{:08x}", stored.0),
            title: input.title,
            body: input.body,
            tags: Some(input.tags.unwrap_or_default()),
        };
        stored.1.push(note.clone());
        Ok(Json(note))
    }

    #[tool(description = "Return one note by its identifier.")]
    fn get_note(&self, Parameters(input): Parameters<ById>) -> Result<Json<Note>, ErrorData> {
        let stored = self.stored.lock().map_err(poisoned)?;
        let found = stored.1.iter().find(|n| n.id == input.id).cloned();
        found
            .map(Json)
            .ok_or_else(|| ErrorData::invalid_params(format!("no note {}", input.id), None))
    }

    #[tool(description = "List notes, newest first, optionally only those with a tag.")]
    fn list_notes(
        &self,
        Parameters(input): Parameters<ListNotes>,
    ) -> Result<Json<Notes>, ErrorData> {
        let stored = self.stored.lock().map_err(poisoned)?;
        let limit = usize::try_from(input.limit.unwrap_or(20)).unwrap_or(usize::MAX);
        let tagged = |note: &&Note| match &input.tag {
            None => true,
            Some(tag) => note.tags.iter().flatten().any(|t| t == tag),
        };
        let result = stored
            .1
            .iter()
            .rev()
            .filter(tagged)
            .take(limit)
            .cloned()
            .collect();
        Ok(Json(Notes { result }))
    }

    #[tool(description = "How many notes are stored.")]
    fn count_notes(&self) -> Result<Json<Count>, ErrorData> {
        let stored = self.stored.lock().map_err(poisoned)?;
        let result = i64::try_from(stored.1.len()).map_err(poisoned)?;
        Ok(Json(Count { result }))
    }

    #[tool(description = "Delete a note for good.")]
    fn delete_note(&self, Parameters(input): Parameters<ById>) -> Result<Json<Deleted>, ErrorData> {
        let mut stored = self.stored.lock().map_err(poisoned)?;
        let before = stored.1.len();
        stored.1.retain(|n| n.id != input.id);
        Ok(Json(Deleted {
            deleted: stored.1.len() < before,
        }))
    }

    #[tool(description = "The tags in use, arranged as a tree by prefix.")]
    fn tag_tree(&self, Parameters(input): Parameters<TreeOf>) -> Result<Json<TagTree>, ErrorData> {
        let stored = self.stored.lock().map_err(poisoned)?;
        let root = input.root.unwrap_or_else(|| "home".to_owned());
        let prefix = format!("{root}-");
        let mut tags: Vec<String> = stored
            .1
            .iter()
            .flat_map(|n| n.tags.iter().flatten())
            .filter(|t| t.starts_with(&prefix))
            .cloned()
            .collect();
        tags.sort();
        tags.dedup();
        let children = tags
            .into_iter()
            .map(|tag| TagTree {
                tag,
                children: None,
            })
            .collect();
        Ok(Json(TagTree {
            tag: root,
            children: Some(children),
        }))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Server::default().serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
