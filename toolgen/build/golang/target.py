"""The Go target: a package for the official Go SDK (`package.py`, types in `types.py`)."""

from __future__ import annotations

from toolgen.build.golang.package import MODULE_OPTION, check_go, render_go, valid_module
from toolgen.build.target import Option, Target, at_once

TARGET = Target(
    "go",
    at_once(render_go),
    check=check_go,
    options={
        MODULE_OPTION: Option(
            "a Go module path (slash-separated letters, digits and ._~-; {package} stands for "
            "the package name)",
            valid_module,
        )
    },
)
