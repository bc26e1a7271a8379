"""The registry of build targets: every language `toolgen build --target` can write.

Adding a target is adding its folder under `toolgen/build/` (a printer and its runtime
text, see `toolgen.build.target`) and its line here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from toolgen.build.golang.target import TARGET as GO
from toolgen.build.python.target import TARGET as PYTHON
from toolgen.build.rust.target import TARGET as RUST
from toolgen.build.target import Target
from toolgen.build.typescript.target import TARGET as TYPESCRIPT

TARGETS: Final[Mapping[str, Target]] = {
    target.name: target for target in (PYTHON, TYPESCRIPT, RUST, GO)
}
"""Every target, by name, in the order a build renders them."""
DEFAULT_TARGETS: Final = ("python",)
