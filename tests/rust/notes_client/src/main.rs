//! Drives a notes server through the generated `Client` and prints what came back as one JSON
//! object: `notes_client every SERVER [ARGS...]` calls every tool (drift is an error);
//! `notes_client count SERVER [ARGS...]` calls `count_notes` alone, drift ignored.

use std::error::Error;

use notes::{
    Client, ClientError, CountNotesInput, CreateNoteInput, DeleteNoteInput, DriftPolicy,
    GetNoteInput, ListNotesInput, TagTreeInput,
};
use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde_json::json;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: notes_client every|count SERVER [ARGS...]";
    let mode = args.next().ok_or(usage)?;
    let program = args.next().ok_or(usage)?;
    let mut command = tokio::process::Command::new(program);
    command.args(args);
    let service = ().serve(TokioChildProcess::new(command)?).await?;
    if mode == "count" {
        let client = Client::new(service.peer().clone(), DriftPolicy::Ignore)?;
        let error = match client.count_notes(&CountNotesInput {}).await {
            Ok(_) => None,
            Err(ClientError::Drift(_)) => Some("drift"),
            Err(_) => Some("other"),
        };
        let drift: Vec<[String; 2]> = match client.drift().await {
            Ok(drift) => drift
                .iter()
                .map(|d| [d.tool.clone(), d.field.clone()])
                .collect(),
            Err(_) => Vec::new(),
        };
        println!("{}", json!({"error": error, "drift": drift}));
        service.cancel().await?;
        return Ok(());
    }
    let client = Client::new(service.peer().clone(), DriftPolicy::Error)?;

    let created = client
        .create_note(&CreateNoteInput {
            title: "Groceries".to_owned(),
            body: Some("milk".to_owned()),
            tags: Some(vec!["home".to_owned(), "home-garden".to_owned()]),
        })
        .await?;
    let got = client
        .get_note(&notes::GetNoteInput {
            id: created.id.clone(),
        })
        .await?;
    let listed = client
        .list_notes(&ListNotesInput {
            tag: Some("home".to_owned()),
            limit: None,
        })
        .await?;
    let counted = client.count_notes(&CountNotesInput {}).await?;
    let tree = client.tag_tree(&TagTreeInput { root: None }).await?;
    let deleted = client
        .delete_note(&DeleteNoteInput {
            id: created.id.clone(),
        })
        .await?;
    let missing = match client
        .get_note(&GetNoteInput {
            id: created.id.clone(),
        })
        .await
    {
        Err(ClientError::Tool { text, .. }) => json!({"isError": text}),
        other => json!({"unexpected": format!("{other:?}")}),
    };
    let report = json!({
        "revision": service.peer().peer_info().map(|info| info.protocol_version.to_string()),
        "drift": client.drift().await?.len(),
        "create_note": created,
        "get_note": got,
        "list_notes": listed,
        "count_notes": counted,
        "tag_tree": tree,
        "delete_note": deleted,
        "get_deleted": missing,
    });
    println!("{report}");
    service.cancel().await?;
    Ok(())
}
