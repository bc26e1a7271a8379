"""The Python target: a package of pydantic models, a server stub and a typed client.

`models.py` comes from datamodel-code-generator (DCG), which loads only when models are
made; a big spec set's models are made by worker processes (`modeljobs`) while the build
renders everything else. The user's handler module is written once beside the package.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from toolgen.build.progress import step
from toolgen.build.python.client import render_client
from toolgen.build.python.modelplan import ModelPlan, build_plan
from toolgen.build.python.package import (
    check_package_name,
    existing_handlers,
    render_init,
    scaffold_path,
)
from toolgen.build.python.server import render_handlers_scaffold, render_server, tool_methods
from toolgen.build.target import Finish, Rendering, Target


def plan(job: Rendering) -> ModelPlan:
    """The model plan of the spec set (its class names and the schema DCG reads), made once."""
    return job.once("python.plan", lambda: build_plan(job.toolset, job.model))


def methods(job: Rendering) -> dict[str, str]:
    """Tool name → handler method (an input error when two tools share one), made once."""
    return job.once("python.methods", lambda: tool_methods(job.toolset.tools))


def _check(job: Rendering) -> None:
    check_package_name(job.toolset)
    methods(job)


@contextmanager
def _render(job: Rendering) -> Iterator[Finish]:
    from toolgen.build.python import modeljobs, models  # DCG loads only when models are made

    toolset, note = job.toolset, job.source_note
    origin = toolset.server.origin
    with modeljobs.fragments_beside(plan(job), origin.locate() if origin else None) as made:

        def finish() -> list[tuple[str, str]]:
            files = [
                *render_init(toolset, source_note=note),
                *render_server(toolset, source_note=note, plan=plan(job), methods=methods(job)),
                *render_client(
                    toolset,
                    source_note=note,
                    plan=plan(job),
                    model=job.model,
                    handlers=methods(job),
                ),
            ]
            with step(job.progress, f"{toolset.server.package}: models"):
                text = models.render_models(
                    toolset, source_note=note, plan=plan(job), fragments=made.result()
                )
            return [*files, ("models.py", text)]

        yield finish


def _scaffold(job: Rendering, spec_root: Path, out: Path) -> Mapping[str, str]:
    package = job.toolset.server.package
    if existing_handlers(spec_root, out, package) is not None:
        return {}
    scaffold = render_handlers_scaffold(job.toolset, plan(job), methods(job))
    return {scaffold_path(package): scaffold}


TARGET = Target("python", _render, check=_check, scaffold=_scaffold)
