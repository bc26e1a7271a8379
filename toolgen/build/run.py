"""The build pipeline: spec sets → rendered packages → the writer (or a drift report).

`render_package` is pure (IR in, files out); `build` and `check` add the disk. A
build skips a spec set whose output already holds what its input renders to: toolgen's
cache (`toolgen.cache`, outside the project, keyed by the input, toolgen itself and the
model generator's version) remembers the manifest each input rendered, and the disk is
compared with it. Nothing committed decides what is fresh, so an edited or upgraded
toolgen renders again. `check` always renders, and compares bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Final

from toolgen import cache
from toolgen.build.common import header_source, header_text
from toolgen.build.progress import Progress, clock, step
from toolgen.build.reasons import render_reasons
from toolgen.build.schemas import render_schemas
from toolgen.build.target import Files, Rendering
from toolgen.build.targets import DEFAULT_TARGETS, TARGETS
from toolgen.build.tooldefs import render_tooldefs
from toolgen.build.views import render_views
from toolgen.build.writer import (
    Drift,
    PackageOutput,
    drift,
    is_up_to_date,
    read_manifest,
    write,
)
from toolgen.spec.errors import Diagnostic, SpecError
from toolgen.spec.ir import Refs, ToolSet
from toolgen.spec.loader import SpecSetFiles, spec_sets
from toolgen.spec.pipeline import load_set
from toolgen.spec.protocol import LATEST_REVISION

CACHE_KIND: Final = "build"
"""The kind of `toolgen.cache` entry that remembers what an input rendered."""


def render_package(
    toolset: ToolSet,
    *,
    source_note: str,
    progress: Progress | None = None,
    targets: Sequence[str] = DEFAULT_TARGETS,
    options: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """All generated files of one spec set for `targets` with their `options`, relative to
    `OUT/<package>/` (`progress` hears of steps that run for seconds)."""
    return _render(Rendering(toolset, source_note, progress, dict(options or {})), targets)


def _render(job: Rendering, targets: Sequence[str]) -> dict[str, str]:
    """The files of `job`: what every build writes, then each target's. Every target checks
    the spec set before any renders; each then starts, so that a target working in other
    processes (the Python models) works while the others render."""
    package = job.toolset.server.package
    chosen = [TARGETS[name] for name in TARGETS if name in targets]
    for target in chosen:
        target.check(job)
    toolset, note = job.toolset, job.source_note
    shared: dict[str, Callable[[], Files]] = {
        "schemas": lambda: render_schemas(toolset, source_note=note),
        "tooldefs": lambda: render_tooldefs(toolset, source_note=note, listings=job.listings),
        "views": lambda: render_views(
            toolset, source_note=note, definitions=job.listings[LATEST_REVISION]["tools"]
        ),
        "reasons": lambda: render_reasons(toolset, source_note=note),
    }
    files: dict[str, str] = {}
    with ExitStack() as started:
        finishing = [(t.name, started.enter_context(t.render(job))) for t in chosen]
        for name, emit in shared.items():
            with step(job.progress, f"{package}: {name}"):
                files.update(emit())
        for name, finish in finishing:
            with step(job.progress, f"{package}: {name}"):
                files.update(finish())
    return dict(sorted(files.items()))


@dataclass
class BuildReport:
    """What a build did, for the CLI to print."""

    packages: list[str] = field(default_factory=list)
    up_to_date: list[str] = field(default_factory=list)
    written: int = 0
    deleted: int = 0
    scaffolds: list[str] = field(default_factory=list)
    unchanged: int = 0
    recovered: bool = False
    """Whether the build first finished what an interrupted one had started."""


def source_note(spec_set: SpecSetFiles, out: Path) -> str:
    """The spec set's path relative to the output's parent (stable whatever the cwd)."""
    base = out.resolve().parent
    try:
        return Path(os.path.relpath(spec_set.root.resolve(), base)).as_posix()
    except ValueError:
        return spec_set.root.resolve().as_posix()


def input_hash(
    spec_set: SpecSetFiles,
    note: str,
    name: str | None,
    refs: Refs | None = None,
    targets: Sequence[str] = DEFAULT_TARGETS,
    options: Mapping[str, str] | None = None,
) -> str:
    """A hash of everything a spec set's output is rendered from, but toolgen itself: the
    options (the source note, `--name`, `--refs`, the targets and their options) and each
    spec file's path and bytes."""
    settings: dict[str, object] = {
        "source": note,
        "name": name,
        "refs": refs,
        "targets": list(targets),
    }
    if options:
        settings["options"] = dict(sorted(options.items()))
    digest = hashlib.sha256(json.dumps(settings).encode())
    root = spec_set.root.resolve()
    for path in spec_set.files:
        data = path.read_bytes()
        digest.update(f"\n{Path(os.path.relpath(path, root)).as_posix()}\n{len(data)}\n".encode())
        digest.update(data)
    return digest.hexdigest()


def render_all(
    spec_paths: Sequence[str | Path],
    out: Path,
    *,
    skip_fresh: bool,
    as_recorded: bool = False,
    progress: Progress | None = None,
    scaffold: bool = False,
    name: str | None = None,
    refs: Refs | None = None,
    targets: Sequence[str] = DEFAULT_TARGETS,
    options: Mapping[str, str] | None = None,
) -> tuple[list[PackageOutput], list[str]]:
    """Render every spec set; with `skip_fresh`, skip those whose output under `out` holds
    what their input rendered last time (the fresh packages are returned apart). A spec set
    without a `server` block is named `name`, else after its directory (`progress` says so). `refs`
    overrides how each spec set's tool definitions write `$ref`s (`server.refs`). With
    `as_recorded`, a package already under `out` is rendered with the source note and input
    hash its manifest records: how the specs were named (a file, its directory, a directory
    of spec sets) is no difference. `options` are the targets' (`Rendering.options`)."""
    outputs: list[PackageOutput] = []
    fresh: list[str] = []
    problems: list[Diagnostic] = []
    for spec_set in spec_sets(spec_paths):
        note = source_note(spec_set, out)
        digest = input_hash(spec_set, note, name, refs, targets, options)
        if skip_fresh and (package := _fresh(out, digest)):
            fresh.append(package)
            continue
        try:
            with step(progress, f"reading {note}"):
                toolset = load_set(spec_set, name=name).with_refs(refs)
        except SpecError as exc:
            problems.extend(exc.diagnostics)
            continue
        package = toolset.server.package
        if as_recorded and (recorded := _recorded(out / package)):
            note, digest = recorded
        if progress and not toolset.server.declared:
            how = "as --name says" if name else "after its directory (--name NAME chooses)"
            progress(f"{note} has no server block: naming the server {toolset.server.name!r} {how}")
        if progress:
            count = len(toolset.tools)
            progress(f"rendering {package} ({count} tool{'s' if count != 1 else ''}) from {note}")
        job = Rendering(toolset, note, progress, dict(options or {}))
        files = _render(job, targets)
        scaffolds: dict[str, str] = {}
        for target in (TARGETS[name] for name in TARGETS if name in targets):
            if scaffold and target.scaffold is not None:
                scaffolds.update(target.scaffold(job, spec_set.root, out))
        outputs.append(PackageOutput(package, files, digest, scaffolds, header=header_text(note)))
    if problems:
        raise SpecError(problems)
    return outputs, fresh


def _recorded(package_dir: Path) -> tuple[str, str] | None:
    """The source note and input hash the manifest in `package_dir` records, or None."""
    manifest = read_manifest(package_dir) or {}
    note = header_source(str(manifest.get("comment")))
    digest = manifest.get("input")
    return (note, digest) if note is not None and isinstance(digest, str) else None


def _fresh(out: Path, digest: str) -> str | None:
    """The package under `out` that holds exactly what this input rendered last time (as the
    cache remembers it, for this toolgen), untouched since; None when there is none."""
    entry = cache.load(CACHE_KIND, _key(digest))
    if entry is None:
        return None
    package, _, manifest = entry.decode("utf-8", "replace").partition("\n")
    if package.isidentifier() and is_up_to_date(out, package, manifest):
        return package
    return None


def _remember(outputs: list[PackageOutput]) -> None:
    """Tell the cache what each input rendered (once it is on disk)."""
    for output in outputs:
        entry = f"{output.package}\n{output.manifest_text()}".encode()
        cache.store(CACHE_KIND, _key(output.input_hash), entry)


def _key(digest: str) -> str:
    """The cache key of what an input (`input_hash`) renders to with this toolgen and this
    datamodel-code-generator (`make_key` adds toolgen's own identity)."""
    return cache.make_key(CACHE_KIND, digest, metadata.version("datamodel-code-generator"))


def build(
    spec_paths: Sequence[str | Path],
    out: Path,
    *,
    progress: Progress | None = None,
    scaffold: bool = True,
    name: str | None = None,
    force: bool = False,
    refs: Refs | None = None,
    targets: Sequence[str] = DEFAULT_TARGETS,
    options: Mapping[str, str] | None = None,
) -> BuildReport:
    """Render and write every spec set in `spec_paths` under `out`, all or nothing.

    With `scaffold`, a handler module for users is written beside each package when the
    server has none (`OUT/<package>_handlers.py`); it is never overwritten. A generated
    file someone edited is refused by name unless `force`. A build that was killed is
    completed (or its staging removed) first."""
    with clock():  # progress counts from here: a long build of short steps reports too
        outputs, fresh = render_all(
            spec_paths,
            out,
            skip_fresh=True,
            progress=progress,
            scaffold=scaffold,
            name=name,
            refs=refs,
            targets=targets,
            options=options,
        )
        if not outputs:
            return BuildReport(up_to_date=fresh)
        with step(progress, f"writing {out}"):
            changes = write(out, outputs, force=force)
    _remember(outputs)
    return BuildReport(
        packages=[o.package for o in outputs],
        up_to_date=fresh,
        written=len(changes.writes),
        deleted=len(changes.deletes),
        scaffolds=[str(path) for path in changes.creates],
        unchanged=changes.unchanged,
        recovered=changes.recovered,
    )


def check(
    spec_paths: Sequence[str | Path],
    out: Path,
    *,
    name: str | None = None,
    refs: Refs | None = None,
    targets: Sequence[str] = DEFAULT_TARGETS,
    options: Mapping[str, str] | None = None,
) -> Drift:
    """How `out` differs from a fresh render of the spec sets (empty when up to date), the
    headers naming the specs as the output already does."""
    outputs, _ = render_all(
        spec_paths,
        out,
        skip_fresh=False,
        as_recorded=True,
        name=name,
        refs=refs,
        targets=targets,
        options=options,
    )
    return drift(out, outputs)
