"""The TypeScript target: a module for the official TypeScript SDK (`module.py`)."""

from __future__ import annotations

from toolgen.build.target import Target, at_once
from toolgen.build.typescript.module import render_typescript

TARGET = Target("typescript", at_once(render_typescript))
