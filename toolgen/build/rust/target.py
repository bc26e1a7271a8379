"""The Rust target: a library crate on the official Rust SDK, `rmcp` (`crate.py`)."""

from __future__ import annotations

from toolgen.build.rust.crate import render_rust
from toolgen.build.target import Target, at_once

TARGET = Target("rust", at_once(render_rust))
