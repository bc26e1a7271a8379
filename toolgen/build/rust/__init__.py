"""The Rust target: the runtime text every generated crate carries (`runtime.rs`)."""
