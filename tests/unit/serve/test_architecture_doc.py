"""The serving parts of docs/architecture.md name modules and functions that exist: the
walk of a `tools/call` stays true to the code."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest
from conftest import ROOT

import toolgen.serve

DOC = ROOT / "docs" / "architecture.md"
SECTIONS = ("## A tools/call from the transport to the handler", "## What outlives a request")
PATH = re.compile(r"`(serve/[\w/]+\.py)`")
DOTTED = re.compile(r"`([A-Za-z_]\w*)\.([A-Za-z_]\w*)`")


def _serving_text() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(SECTIONS[0])
    return text[start:]


def _owners() -> dict[str, list[object]]:
    """Every module of `toolgen.serve` by its last name (`calls`: both of them) and every
    class defined there by its name."""
    modules = [importlib.import_module("toolgen.limits")]
    for info in pkgutil.walk_packages(toolgen.serve.__path__, "toolgen.serve."):
        modules.append(importlib.import_module(info.name))
    owners: dict[str, list[object]] = {}
    for module in modules:
        owners.setdefault(module.__name__.rpartition(".")[2], []).append(module)
        for name, value in vars(module).items():
            if inspect.isclass(value) and value.__module__ == module.__name__:
                owners.setdefault(name, []).append(value)
    return owners


def test_the_doc_has_the_serving_sections() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert all(section in text for section in SECTIONS)


@pytest.mark.parametrize("path", sorted(set(PATH.findall(_serving_text()))))
def test_every_module_the_walk_names_exists(path: str) -> None:
    assert (ROOT / "toolgen" / path).is_file()


@pytest.mark.parametrize("owner, name", sorted(set(DOTTED.findall(_serving_text()))))
def test_every_function_the_walk_names_exists(owner: str, name: str) -> None:
    owners = _owners()
    assert owner in owners, f"{owner} is neither a module nor a class of toolgen.serve"
    assert any(hasattr(found, name) for found in owners[owner]), f"{owner}.{name} does not exist"
