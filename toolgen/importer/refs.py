"""`$ref`s of published schemas → spec `defs`: local definitions hoisted, pointers resolved.

A spec refers to shared schemas only as `#/defs/NAME`. Published schemas
carry their own `$defs` (or `definitions`) and may point anywhere inside
themselves with a JSON Pointer (`#/properties/a/items`), as
zod-to-json-schema does for a reused schema. Here:

- every local definition becomes a spec def: one def for identical
  definitions of several tools (hoisting), a fresh name (`Name2`) when two
  tools define the same name differently;
- a pointer to a place that does not contain the ref is replaced by a copy of
  its target; a pointer to an ancestor (recursion) becomes a def of its own;
- a ref that cannot be resolved (dangling, an anchor, or another document,
  which is never fetched) is dropped: that part of the schema then accepts anything.

Every change that makes the emitted schema read differently is a note.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from toolgen.schema.allof import in_place_cycles
from toolgen.schema.check import metaschema_errors
from toolgen.schema.inline import merge_ref
from toolgen.schema.jsonequal import same
from toolgen.schema.pointer import MISSING, escape, follow, pointer_tokens, unescape
from toolgen.schema.walk import LISTED, MAPPED, SINGLE, walk_schemas
from toolgen.spec.positions import JsonPath

LOCAL_DEFS = ("$defs", "definitions")

Note = tuple[JsonPath, str]
LocalKey = tuple[str, str]  # ("$defs" or "definitions", name)


SPEC_DEFS = "#/defs/"


def spec_ref(name: str) -> str:
    """The spec `$ref` to def `name` (JSON Pointer escaping)."""
    return SPEC_DEFS + escape(name)


@dataclass
class DefRegistry:
    """The spec set's defs: name → schema, in the order they were first needed."""

    schemas: dict[str, Any] = field(default_factory=dict)

    def fits(self, name: str, schema: Any) -> bool:
        """Whether def `name` is free, or already holds exactly `schema` (then it is shared)."""
        return name not in self.schemas or same(self.schemas[name], schema)

    def fresh(self, base: str, taken: set[str]) -> str:
        """`base`, or `base2`, `base3`...: the first name neither a def nor `taken` uses."""
        name, n = base, 1
        while name in self.schemas or name in taken:
            n += 1
            name = f"{base}{n}"
        return name


@dataclass
class Hoisted:
    """A root schema whose refs point at spec defs, and notes on what reads differently."""

    schema: Any
    notes: list[Note] = field(default_factory=list)


def hoist(root: Any, registry: DefRegistry, prefix: str) -> Hoisted:
    """Move `root`'s local definitions into `registry` and point its refs at spec defs.

    `prefix` starts the names of defs made for recursive pointers (e.g. `GetItemInput`).
    """
    if not isinstance(root, dict):
        return Hoisted(root)
    return _Hoister(root, registry, prefix).run()


class _Hoister:
    def __init__(self, root: dict[str, Any], registry: DefRegistry, prefix: str) -> None:
        self.root = root
        self.registry = registry
        self.prefix = prefix
        self.notes: list[Note] = []
        self.local = _local_defs(root)
        self.names: dict[LocalKey, str] = {key: key[1] for key in self.local}
        self.pending: dict[str, Any] = {}  # defs this root adds, by spec name
        self.pointer_defs: dict[str, str] = {}  # recursive pointer → its def
        self.inlining: list[str] = []

    def run(self) -> Hoisted:
        self._name_local_defs()
        self._empty_self_references()
        body = {k: v for k, v in self.root.items() if k not in LOCAL_DEFS}
        rewritten = self._rewrite(body, (), ())
        self._empty_self_references()  # defs made for pointers that only point at each other
        defs = {**self.registry.schemas, **self.pending}
        used = _closure(rewritten, defs)
        unused = {key: name for key, name in self.names.items() if name not in used}
        if unused:  # kept where they were written: a build emits them as published
            rewritten = self._keep_inline(rewritten, unused)
        for name in sorted(
            _closure(rewritten, defs) & set(self.pending), key=list(self.pending).index
        ):
            self.registry.schemas.setdefault(name, self.pending[name])
        return Hoisted(rewritten, self.notes)

    def _empty_self_references(self) -> None:
        for name, loop in without_self_references(self.pending).items():
            message = (
                f"def {name!r} was only a reference to itself ({' -> '.join([*loop, name])}, "
                "through $ref and allOf): the reference back adds nothing and was removed"
            )
            self.notes.append(((), message))

    def _keep_inline(
        self, rewritten: dict[str, Any], unused: dict[LocalKey, str]
    ) -> dict[str, Any]:
        """`rewritten` with the local defs no ref reaches back in their own block, refs rewritten."""
        out = dict(rewritten)
        for (where, name), spec_name in unused.items():
            if spec_name != name:
                self.notes[:] = [n for n in self.notes if n[0] != (where, name)]
            out.setdefault(where, {})[name] = self._quiet_rewrite(
                self.local[(where, name)], (where, name)
            )
        bundled = _closure(out, {**self.registry.schemas, **self.pending})
        inline = out.get("$defs", {})
        for name in sorted(set(inline) & bundled):
            if inline[name] != {**self.registry.schemas, **self.pending}.get(name):
                del inline[name]  # a build bundles the def of that name this schema uses
                message = f"`$defs/{name}` is used by nothing and its name is taken: dropped"
                self.notes.append((("$defs", name), message))
        if "$defs" in out and not inline:
            del out["$defs"]
        return out

    # -- local definitions ------------------------------------------------------

    def _name_local_defs(self) -> None:
        """Each local def keeps its name when free or identical, else gets a fresh one."""
        for _ in range(len(self.local) + 1):
            self.pending, self.pointer_defs = {}, {}
            bodies = {k: self._quiet_rewrite(_def_body(v), k) for k, v in self.local.items()}
            clashes = [
                k for k, body in bodies.items() if not self.registry.fits(self.names[k], body)
            ]
            if not clashes:
                self.pending.update({self.names[k]: body for k, body in bodies.items()})
                break
            taken = set(self.names.values())
            for key in clashes:
                self.names[key] = self.registry.fresh(key[1], taken)
                taken.add(self.names[key])
        for (where, name), target in self.names.items():
            if target != name:
                message = (
                    f"`{where}/{name}` is def {target!r}: another tool defines {name!r} differently"
                )
                self.notes.append(((where, name), message))

    def _quiet_rewrite(self, schema: Any, key: LocalKey) -> Any:
        saved = len(self.notes)
        body = self._rewrite(schema, key, key)
        del self.notes[saved:]  # noted once, for the root, when the names are final
        return body

    # -- refs -------------------------------------------------------------------

    def _rewrite(self, schema: Any, path: JsonPath, doc_path: JsonPath) -> Any:
        """A copy of `schema` (at `doc_path` in the root) with refs pointed at spec defs."""
        if not isinstance(schema, dict):
            return schema
        out: dict[str, Any] = {}
        inlined: dict[str, Any] | None = None
        for key, value in schema.items():
            at = (*path, key)
            if key == "$ref" and isinstance(value, str):
                replaced = self._ref(value, at, doc_path)
                if isinstance(replaced, str):
                    out[key] = replaced
                else:
                    inlined = replaced
            elif key in SINGLE:
                out[key] = self._rewrite(value, at, (*doc_path, key))
            elif key in MAPPED and isinstance(value, dict):
                out[key] = {
                    n: self._rewrite(s, (*at, n), (*doc_path, key, n)) for n, s in value.items()
                }
            elif key in LISTED and isinstance(value, list):
                out[key] = [
                    self._rewrite(s, (*at, i), (*doc_path, key, i)) for i, s in enumerate(value)
                ]
            else:
                out[key] = value
        return merge_ref(inlined, out) if inlined is not None else out

    def _ref(self, ref: str, at: JsonPath, doc_path: JsonPath) -> str | dict[str, Any]:
        """The spec ref for `ref`, or the schema to merge in its place (`{}`: dropped)."""
        tokens = pointer_tokens(ref)
        if tokens is None:
            why = (
                "other documents are never fetched"
                if not ref.startswith("#")
                else "anchors are not resolved"
            )
            self.notes.append((at, f"dropped `$ref` {ref!r} ({why}): this part accepts anything"))
            return {}
        if len(tokens) == 2 and (tokens[0], tokens[1]) in self.local:
            name = self.names[(tokens[0], tokens[1])]
            if tokens[0] != "$defs" or name != tokens[1]:
                self.notes.append((at, f"`$ref` {ref!r} points at def {name!r}"))
            return spec_ref(name)
        target = follow(self.root, tokens)
        if target is MISSING:
            self.notes.append((at, f"dropped dangling `$ref` {ref!r}: this part accepts anything"))
            return {}
        if tuple(tokens) == tuple(doc_path):  # `{"$ref": "#"}` at the root: no schema at all
            self.notes.append(
                (at, f"dropped `$ref` {ref!r} to the schema it is in: it describes nothing")
            )
            return {}
        if not _is_schema(tokens, target):
            self.notes.append((at, f"dropped `$ref` {ref!r}: what it points at is no schema"))
            return {}
        if tuple(tokens) == tuple(doc_path[: len(tokens)]) or ref in self.inlining:
            return spec_ref(self._recursive_def(ref, tokens, target))
        self.notes.append((at, f"`$ref` {ref!r} replaced by a copy of what it points at"))
        self.inlining.append(ref)
        try:
            copied = self._rewrite(copy.deepcopy(target), at, tuple(tokens))
        finally:
            self.inlining.pop()
        return copied if isinstance(copied, dict) else ({} if copied is not False else {"not": {}})

    def _recursive_def(self, ref: str, tokens: list[str], target: Any) -> str:
        """A def for a pointer target that contains its own ref (a recursive schema)."""
        if ref in self.pointer_defs:
            return self.pointer_defs[ref]
        base = self.prefix + "".join(_camel(t) for t in tokens if t not in ("properties", "items"))
        name = self.registry.fresh(base, set(self.pending) | set(self.names.values()))
        self.pointer_defs[ref] = name
        self.pending[name] = None  # reserved while its own body is rewritten
        body = _def_body(target)
        self.pending[name] = self._rewrite(body, (), tuple(tokens))
        self.notes.append(((), f"recursive `$ref` {ref!r} points at new def {name!r}"))
        return name


def _def_body(schema: Any) -> Any:
    """`schema` as the root of a def: no definitions of its own, no dialect (defs are 2020-12)."""
    if not isinstance(schema, dict):
        return schema
    return {k: v for k, v in schema.items() if k not in LOCAL_DEFS and k != "$schema"}


def _is_schema(tokens: list[str], value: Any) -> bool:
    """Whether a ref target (at `tokens` in the root) is a schema: it stands where a schema
    stands (not, say, the `properties` map or an `enum` value) and is a valid one."""
    expect = "schema"
    for token in tokens:
        if expect == "schema":
            expect = (
                "schema"
                if token in SINGLE
                else "map"
                if token in MAPPED
                else "list"
                if token in LISTED
                else "value"
            )
        elif expect in ("map", "list"):
            expect = "schema"
        else:
            return False
    if expect != "schema":
        return False
    if isinstance(value, bool):
        return True
    return isinstance(value, dict) and next(iter(metaschema_errors(_def_body(value))), None) is None


def without_self_references(defs: dict[str, Any]) -> dict[str, list[str]]:
    """Repair (in place) the defs that reach themselves through `$ref`s and `allOf`s alone;
    each → its loop. Every def on a loop includes all the others, so each is all their
    other keywords together: the first def on the loop gets them, and the others point at
    it (`A: {$ref: A}` then accepts anything; `B: {allOf: [{$ref: C}]}` with `C: {allOf:
    [{$ref: B}, {type: string}]}` gives `B` the `type: string` and `C` a `$ref` to `B`)."""
    repaired: dict[str, list[str]] = {}
    while looping := in_place_cycles(defs, _spec_def_name):
        done: set[str] = set()
        for loop in looping.values():
            members = set(loop)
            if members & done:
                continue  # loops that share a def: the next round sees what is left
            done |= members
            order = [n for n in defs if n in members]
            parts = {n: _without_refs_to(defs[n], members) for n in order}
            first = order[0]
            defs[first] = _with_all_of(parts[first], [parts[n] for n in order[1:]])
            for other in order[1:]:
                defs[other] = _with_all_of(parts[other], [{"$ref": spec_ref(first)}])
            for member in loop:
                repaired.setdefault(member, looping[member])
    return repaired


def _with_all_of(schema: Any, branches: list[Any]) -> Any:
    branches = [branch for branch in branches if branch != {}]
    if not branches or not isinstance(schema, dict):
        return schema
    return {**schema, "allOf": [*schema.get("allOf", []), *branches]}


def _without_refs_to(schema: Any, names: set[str]) -> Any:
    """`schema` without the in-place refs (its own `$ref`, its `allOf`s') to `names`."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if _spec_def_name(out.get("$ref")) in names:
        del out["$ref"]
    if isinstance(out.get("allOf"), list):
        branches = [_without_refs_to(branch, names) for branch in out["allOf"]]
        out["allOf"] = [branch for branch in branches if branch != {}]
        if not out["allOf"]:
            del out["allOf"]
    return out


def _spec_def_name(ref: Any) -> str | None:
    if not isinstance(ref, str) or not ref.startswith(SPEC_DEFS):
        return None
    return unescape(ref[len(SPEC_DEFS) :])


def _closure(schema: Any, defs: dict[str, Any]) -> set[str]:
    """Names of the spec defs `schema` reaches, directly or through other defs."""
    seen: set[str] = set()
    todo = [schema]
    while todo:
        for _, sub in walk_schemas(todo.pop()):
            name = _spec_def_name(sub.get("$ref")) if isinstance(sub, dict) else None
            if name is not None and name not in seen and name in defs:
                seen.add(name)
                todo.append(defs[name])
    return seen


def _local_defs(root: dict[str, Any]) -> dict[LocalKey, Any]:
    found: dict[LocalKey, Any] = {}
    for where in LOCAL_DEFS:
        block = root.get(where)
        if isinstance(block, dict):
            for name, schema in block.items():
                found[(where, name)] = schema
    return found


def _camel(token: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in token.replace("-", "_").split("_") if p)
