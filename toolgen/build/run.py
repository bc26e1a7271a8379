"""The build pipeline: spec sets → rendered packages → writer (or a drift diff).

`render_package` is pure (IR in, files out); `build` and `check` add the
disk: a manifest of content hashes lets a rebuild with unchanged input skip
parsing and rendering entirely, and `build` (never `check`) keeps a cache of
parsed spec files and per-tool model code (`toolgen.build.cache`), so that an edit
re-parses only the files and regenerates only the models it changed.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from toolgen.build import journal
from toolgen.build.cache import Cache
from toolgen.build.common import header_text
from toolgen.build.progress import Progress, clock, step
from toolgen.build.python import modeljobs
from toolgen.build.python.package import render_init
from toolgen.build.reasons import render_reasons
from toolgen.build.schemas import render_schemas
from toolgen.build.tooldefs import render_tooldefs
from toolgen.build.views import render_views
from toolgen.build.writer import PackageOutput, apply, drift, find_fresh, plan
from toolgen.spec import collector
from toolgen.spec.errors import Diagnostic, SpecError
from toolgen.spec.ir import ToolSet
from toolgen.spec.loader import SpecSetFiles, spec_sets
from toolgen.spec.parsecache import SharedReader
from toolgen.spec.pipeline import load_set
from toolgen.spec.source import read_source
from toolgen.version import __version__

if TYPE_CHECKING:
    from toolgen.build.python.modelplan import ModelPlan

Emitter = Callable[..., list[tuple[str, str]]]

TARGETS = ("python", "typescript")
"""What a build can write: the Python package and the TypeScript module (`build/typescript/`);
the JSON Schemas, tool definitions and provider views come with either."""
DEFAULT_TARGETS = ("python",)


class Plans:
    """One model plan per toolset, shared by the models, server and client emitters (and the
    children that make models beside the build)."""

    def __init__(self) -> None:
        self._plans: dict[int, tuple[ToolSet, ModelPlan]] = {}
        self._keys: dict[int, tuple[ModelPlan, list[str]]] = {}

    def of(self, toolset: ToolSet) -> ModelPlan:
        from toolgen.build.python.modelplan import build_plan

        known = self._plans.get(id(toolset))
        if known is None or known[0] is not toolset:
            known = self._plans[id(toolset)] = (toolset, build_plan(toolset))
        return known[1]

    def keys(self, toolset: ToolSet) -> list[str]:
        """The cache key of each unit of the toolset's plan (`emit.models.unit_keys`)."""
        from toolgen.build.python.models import unit_keys

        plan = self.of(toolset)
        known = self._keys.get(id(toolset))
        if known is None or known[0] is not plan:
            known = self._keys[id(toolset)] = (plan, unit_keys(plan))
        return known[1]


def emitters(
    model_cache: Cache | None = None,
    plans: Plans | None = None,
    targets: Sequence[str] = DEFAULT_TARGETS,
) -> list[Emitter]:
    """The emitters of `targets`, in a fixed order; each is a pure `(toolset, source_note=...)
    -> files` (the models emitter reads and fills `model_cache`, which never changes its
    output). The models, server and client emitters share one model plan per toolset."""
    plans = plans or Plans()
    plan_of = plans.of

    def models(toolset: ToolSet, *, source_note: str) -> list[tuple[str, str]]:
        from toolgen.build.python import dcgfixes
        from toolgen.build.python.models import render_models

        dcgfixes.apply()  # DCG's formatter is quadratic in the length of a line (huge enums)

        text = render_models(
            toolset,
            source_note=source_note,
            cache=model_cache,
            plan=plan_of(toolset),
            keys=plans.keys(toolset),
        )
        return [("models.py", text)]

    def server(toolset: ToolSet, *, source_note: str) -> list[tuple[str, str]]:
        from toolgen.build.python.server import render_server  # jinja2: imported only to render

        return render_server(toolset, source_note=source_note, plan=plan_of(toolset))

    def client(toolset: ToolSet, *, source_note: str) -> list[tuple[str, str]]:
        from toolgen.build.python.client import render_client  # jinja2: imported only to render

        return render_client(toolset, source_note=source_note, plan=plan_of(toolset))

    def typescript(toolset: ToolSet, *, source_note: str) -> list[tuple[str, str]]:
        from toolgen.build.typescript.module import render_typescript  # TypeScript builds only

        return render_typescript(toolset, source_note=source_note)

    python = "python" in targets
    shared: list[Emitter] = [render_schemas, render_tooldefs, render_views, render_reasons]
    return [
        *([render_init] if python else []),
        *shared,
        *([models, server, client] if python else []),
        *([typescript] if "typescript" in targets else []),
    ]


def render_package(
    toolset: ToolSet,
    *,
    source_note: str,
    model_cache: Cache | None = None,
    progress: Progress | None = None,
    pool: modeljobs.Pool | None = None,
    plans: Plans | None = None,
    targets: Sequence[str] = DEFAULT_TARGETS,
) -> dict[str, str]:
    """All generated files of one spec set for `targets`, relative to `OUT/<package>/` (`progress` hears
    of emitters that run for seconds). On a machine with two cores, the models of a big spec
    set are made in forked children while this process renders the rest
    (`compiler.modeljobs`; `pool`'s children, forked and warmed up while the spec set was
    read, when given); the models emitter then finds them in the cache. `plans` shares the
    model plan with the caller (the handler scaffold names the same classes)."""
    package = toolset.server.package
    plans = plans or Plans()
    jobs = modeljobs.jobs_for(len(toolset.tools)) or (len(pool.idle) if pool else 0)
    jobs = jobs if "python" in targets else 0
    cache = Cache.scratch() if jobs and model_cache is None else model_cache
    children = []
    if jobs and cache is not None:
        plan, keys = plans.of(toolset), plans.keys(toolset)
        children = modeljobs.start(toolset, plan, keys, cache, jobs, pool)
    run = emitters(cache, plans, targets)
    made: dict[str, list[tuple[str, str]]] = {}
    for emit in sorted(run, key=lambda emit: emit.__name__ == "models"):  # models last
        with step(progress, f"{package}: {emit.__name__.removeprefix('render_')}"):
            if emit.__name__ == "models" and cache is not None:
                modeljobs.finish(children, cache)  # what they made, the emitter finds
            made[emit.__name__] = emit(toolset, source_note=source_note)
    return {path: text for emit in run for path, text in made[emit.__name__]}


@dataclass
class BuildReport:
    """What a build did, for the CLI to print."""

    packages: list[str] = field(default_factory=list)
    up_to_date: list[str] = field(default_factory=list)
    written: int = 0
    deleted: int = 0
    scaffolds: list[str] = field(default_factory=list)
    unchanged: int = 0


def source_note(spec_set: SpecSetFiles, out: Path) -> str:
    """The spec set's path relative to the output's parent (stable whatever the cwd)."""
    base = out.resolve().parent
    try:
        return Path(os.path.relpath(spec_set.root.resolve(), base)).as_posix()
    except ValueError:
        return spec_set.root.resolve().as_posix()


@functools.cache
def generator_fingerprint() -> str:
    """A hash of the code and templates that render output: every stage up to the compiler
    (core, jsonschema, frontend, compiler), not the runtime, lint or the cli.

    Part of every input hash, so editing or upgrading toolgen (or its pinned
    model generator) invalidates manifests instead of leaving stale output
    "up to date".
    """
    from importlib.metadata import version

    from toolgen.build.templating import template_dir

    package = Path(__file__).resolve().parent.parent
    stages = ("core", "jsonschema", "frontend", "compiler")
    files = [path for stage in stages for path in sorted((package / stage).rglob("*.py"))]
    files += sorted(p for p in template_dir().rglob("*") if p.is_file())
    digest = hashlib.sha256(
        f"datamodel-code-generator {version('datamodel-code-generator')}\n".encode()
    )
    for path in files:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def input_hash(spec_set: SpecSetFiles, note: str) -> str:
    """Hash of everything the output depends on: the generator, paths and file bytes."""
    digest = hashlib.sha256(f"toolgen {__version__} {generator_fingerprint()}\n{note}\n".encode())
    for path in spec_set.files:
        digest.update(f"{path.name}\n".encode())
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def render_all(
    paths: Sequence[str | Path],
    out: Path,
    *,
    skip_fresh: bool,
    progress: Progress | None = None,
    caches: list[Cache] | None = None,
    scaffold: bool = False,
    name: str | None = None,
    targets: Sequence[str] = DEFAULT_TARGETS,
) -> tuple[list[PackageOutput], list[str]]:
    """Render every spec set; with `skip_fresh`, skip those whose manifest matches the input;
    with `caches`, reuse what the last build cached for each spec set (and append the caches
    used, for the caller to save once the output is written). A spec set without a `server`
    block is named `name`, else after its directory (and `progress` says so)."""
    outputs: list[PackageOutput] = []
    fresh: list[str] = []
    problems: list[Diagnostic] = []
    for spec_set in spec_sets(paths):
        note = source_note(spec_set, out)
        named = note if name is None else f"{note}\nname {name}"
        digest = input_hash(spec_set, named + _targets_note(targets))
        if skip_fresh and (package := find_fresh(out, digest)):
            fresh.append(package)
            continue
        cache = Cache.for_spec_set(out, note) if caches is not None else None
        read = SharedReader() if cache else read_source  # the parse cache lint and diff share
        rebuild = cache is not None and cache.path is not None and cache.path.exists()
        with _model_pool(len(spec_set.files) if "python" in targets else 0, rebuild) as pool:
            try:
                with step(progress, f"reading {note}"):
                    toolset = load_set(spec_set, read, name=name)
            except SpecError as exc:
                problems.extend(exc.diagnostics)
                continue
            package = toolset.server.package
            if progress and not toolset.server.declared:
                how = "as --name says" if name else "after its directory (--name NAME chooses)"
                progress(
                    f"{note} has no server block: naming the server {toolset.server.name!r} {how}"
                )
            if progress:
                count = len(toolset.tools)
                progress(
                    f"rendering {package} ({count} tool{'s' if count != 1 else ''}) from {note}"
                )
            if caches is not None and cache is not None:
                caches.append(cache)
            plans = Plans()
            files = render_package(
                toolset,
                source_note=note,
                model_cache=cache,
                progress=progress,
                pool=pool,
                plans=plans,
                targets=targets,
            )
        outputs.append(
            PackageOutput(
                package,
                files,
                digest,
                _scaffolds(toolset, out, plans.of(toolset))
                if scaffold and "python" in targets
                else {},
                header=header_text(note),
            )
        )
    if problems:
        raise SpecError(problems)
    return outputs, fresh


def _targets_note(targets: Sequence[str]) -> str:
    """What the targets add to the input hash (nothing for the default: manifests stay put)."""
    return "" if tuple(targets) == DEFAULT_TARGETS else f"\ntargets {','.join(targets)}"


@contextlib.contextmanager
def _model_pool(files: int, rebuild: bool) -> Iterator[modeljobs.Pool | None]:
    """For a spec set of many files, children that warm up the model generator while it is read
    (`modeljobs.Pool`); those not given work are dismissed on the way out, whatever happens."""
    pool = modeljobs.pool_for(files, rebuild=rebuild)
    try:
        yield pool
    finally:
        if pool:
            pool.close()


def _scaffolds(toolset: ToolSet, out: Path, plan: ModelPlan) -> dict[str, str]:
    """The handler scaffold for users, relative to OUT: written once, when missing (so not
    rendered when it exists)."""
    from toolgen.build.python.server import render_handlers_scaffold, scaffold_path

    path = scaffold_path(toolset.server.package)
    if (out / path).exists():
        return {}
    return {path: render_handlers_scaffold(toolset, plan)}


def build(
    paths: Sequence[str | Path],
    out: Path,
    *,
    progress: Progress | None = None,
    scaffold: bool = True,
    name: str | None = None,
    force: bool = False,
    targets: Sequence[str] = DEFAULT_TARGETS,
) -> BuildReport:
    """Render and write every spec set in `paths` under `out`, all or nothing.

    With `scaffold`, a handler module for users is written beside each package
    when missing (`OUT/<package>_handlers.py`); it is never overwritten. A
    generated file someone edited is refused by name unless `force`. A build
    that was killed is completed (or its staging files removed) first."""
    if journal.recover(out) and progress:
        progress(f"{out}: finished what an interrupted build had started")
    caches: list[Cache] = []
    with clock():  # progress counts from here: a long build of short steps reports too
        with collector.paused():
            outputs, fresh = render_all(
                paths,
                out,
                skip_fresh=True,
                progress=progress,
                caches=caches,
                scaffold=scaffold,
                name=name,
                targets=targets,
            )
        with step(progress, f"writing {out}"):
            changes = plan(out, outputs, force=force)
            apply(changes)
    for cache in caches:  # only once the output is written: a failed build leaves no trace
        cache.save()
    return BuildReport(
        packages=[o.package for o in outputs],
        up_to_date=fresh,
        written=len(changes.writes),
        deleted=len(changes.deletes),
        scaffolds=[str(path) for path in changes.creates],
        unchanged=changes.unchanged,
    )


def check(
    paths: Sequence[str | Path],
    out: Path,
    *,
    name: str | None = None,
    targets: Sequence[str] = DEFAULT_TARGETS,
) -> str:
    """The unified diff between `out` and a fresh render; empty when up to date."""
    with collector.paused():
        outputs, _ = render_all(paths, out, skip_fresh=False, name=name, targets=targets)
    return drift(out, outputs)
