"""FieldRef and FieldPath: how an expression names a (possibly nested) column.

Follows Arrow's C++ `FieldRef` exactly (docs/semantics.md §2): a ref is a name,
an index path, or a flattened sequence of both; it is hashable so it can key the
known-values map; `from_dot_path` reads Arrow's dot-path grammar with its escapes;
resolution against a schema gives Arrow's own error texts.
"""

from __future__ import annotations

import difflib
from typing import Iterable, Union

import pyarrow as pa

from ..errors import BuildError, FieldRefError
from ..support.visible_text import visible

__all__ = ["FieldPath", "FieldRef", "children_of"]


class FieldPath:
    """A sequence of child indices; the resolved form of any FieldRef."""

    __slots__ = ("indices",)

    def __init__(self, indices: Iterable[int] = ()):
        object.__setattr__(self, "indices", tuple(int(i) for i in indices))

    def __setattr__(self, name, value):
        raise AttributeError("FieldPath is immutable")

    def __reduce__(self):
        return (FieldPath, (self.indices,))

    def __eq__(self, other):
        return isinstance(other, FieldPath) and self.indices == other.indices

    def __hash__(self):
        return hash(("FieldPath", self.indices))

    def __repr__(self):
        return self.to_string()

    def to_string(self) -> str:
        if not self.indices:
            return "FieldPath(empty)"
        return "FieldPath(" + " ".join(str(i) for i in self.indices) + ")"

    def get(self, schema_or_type) -> pa.Field | None:
        """The field this path points to, or None when an index is out of range."""
        parent, field = schema_or_type, None
        for i in self.indices:
            if not 0 <= i < _width(parent):
                return None
            field = parent.field(i)
            parent = field.type
        return field


def _width(schema_or_type) -> int:
    """How many child fields a ref can descend into (0 for a type without fields)."""
    if isinstance(schema_or_type, pa.Schema):
        return len(schema_or_type)
    if isinstance(schema_or_type, pa.StructType):
        return schema_or_type.num_fields
    return 0


def children_of(schema_or_type) -> list[pa.Field] | None:
    """The child fields a ref can descend into: a schema's fields or a struct's."""
    if isinstance(schema_or_type, pa.Schema):
        return list(schema_or_type)
    if isinstance(schema_or_type, pa.StructType):
        return [schema_or_type.field(i) for i in range(schema_or_type.num_fields)]
    return None


RefPart = Union[str, int, FieldPath, "FieldRef"]


class FieldRef:
    """A reference to a field by name, by index path, or by a nested mixture.

    `impl` is a `str` (a name), a `FieldPath`, or a tuple of FieldRefs (nested),
    the same three alternatives as Arrow's variant. Construction flattens the way
    Arrow does: empty paths vanish, all-path runs concatenate, one child collapses.
    """

    __slots__ = ("impl", "_hash")

    def __init__(self, *parts: RefPart):
        if len(parts) == 1:
            impl = _single(parts[0])
        else:
            impl = _flatten([_as_ref(p) for p in parts])
        object.__setattr__(self, "impl", impl)
        object.__setattr__(self, "_hash", hash(("FieldRef", impl)))

    def __setattr__(self, name, value):
        raise AttributeError("FieldRef is immutable (it keys dictionaries)")

    def __reduce__(self):  # rebuilt so the hash is this process's
        return (FieldRef._from_impl, (self.impl,))

    # -- alternatives --------------------------------------------------------
    @property
    def name(self) -> str | None:
        return self.impl if isinstance(self.impl, str) else None

    @property
    def field_path(self) -> FieldPath | None:
        return self.impl if isinstance(self.impl, FieldPath) else None

    @property
    def nested_refs(self) -> tuple[FieldRef, ...] | None:
        return self.impl if isinstance(self.impl, tuple) else None

    @property
    def is_name(self) -> bool:
        return isinstance(self.impl, str)

    @property
    def is_field_path(self) -> bool:
        return isinstance(self.impl, FieldPath)

    @property
    def is_nested(self) -> bool:
        return isinstance(self.impl, tuple)

    def leaves(self) -> tuple[FieldRef, ...]:
        return self.impl if isinstance(self.impl, tuple) else (self,)

    # -- value semantics -----------------------------------------------------
    def __eq__(self, other):
        return isinstance(other, FieldRef) and self.impl == other.impl

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return visible(self.to_string())  # Arrow's text, names spelled so none hides

    def to_string(self) -> str:
        if isinstance(self.impl, str):
            return f"FieldRef.Name({self.impl})"
        if isinstance(self.impl, FieldPath):
            return "FieldRef." + self.impl.to_string()
        return "FieldRef.Nested(" + " ".join(r.to_string() for r in self.impl) + ")"

    def to_dot_path(self) -> str:
        """Arrow's ToDotPath; like Arrow it does not escape."""
        if isinstance(self.impl, str):
            return "." + self.impl
        if isinstance(self.impl, FieldPath):
            return "".join(f"[{i}]" for i in self.impl.indices)
        return "".join(r.to_dot_path() for r in self.impl)

    # -- parsing -------------------------------------------------------------
    @classmethod
    def from_dot_path(cls, dot_path: str) -> FieldRef:
        """Parse Arrow's grammar `('.' name | '[' digits ']')*` with `\\` escapes."""
        original = dot_path
        children: list[FieldRef] = []
        pos, n = 0, len(dot_path)
        while pos < n:
            ch = dot_path[pos]
            if ch == ".":
                pos += 1
                name = []
                while pos < n and dot_path[pos] not in ".[":
                    if dot_path[pos] == "\\":
                        if pos + 1 == n:  # a trailing lone backslash is kept
                            name.append("\\")
                            pos += 1
                            break
                        name.append(dot_path[pos + 1])
                        pos += 2
                        continue
                    name.append(dot_path[pos])
                    pos += 1
                children.append(FieldRef("".join(name)))
            elif ch == "[":
                end = pos + 1
                while end < n and dot_path[end].isdigit() and dot_path[end].isascii():
                    end += 1
                if end >= n or dot_path[end] != "]":
                    raise FieldRefError(f"Dot path '{original}' contained an unterminated index")
                digits = dot_path[pos + 1 : end]
                children.append(FieldRef(FieldPath([int(digits) if digits else 0])))
                pos = end + 1
            else:
                raise FieldRefError(
                    f"Dot path must begin with '[' or '.', got '{original}'"
                )
        if not children:
            return cls._from_impl(())
        return cls(*children) if len(children) > 1 else children[0]

    @classmethod
    def _from_impl(cls, impl) -> FieldRef:
        ref = cls.__new__(cls)
        object.__setattr__(ref, "impl", impl)
        object.__setattr__(ref, "_hash", hash(("FieldRef", impl)))
        return ref

    # -- resolution ----------------------------------------------------------
    def find_all(self, schema_or_type) -> list[FieldPath]:
        """Every path in the schema (or struct type) this ref matches."""
        matches: list[tuple[int, ...]] = [()]
        for leaf in self.leaves():
            nxt: list[tuple[int, ...]] = []
            for prefix in matches:
                parent = schema_or_type if not prefix else FieldPath(prefix).get(schema_or_type).type
                nxt.extend(prefix + p for p in _leaf_matches(leaf, parent))
            matches = nxt
        return [FieldPath(m) for m in matches]

    def find_one(self, schema_or_type) -> FieldPath:
        """The single matching path, or Arrow's error naming the schema's fields."""
        found = self.find_all(schema_or_type)
        if not found:
            raise FieldRefError(
                _no_match_message(self, schema_or_type), ref=self, schema=schema_or_type,
                arrow_message=f"No match for {self.to_string()} in {_describe(schema_or_type)}",
                name=self._written())
        if len(found) > 1:
            raise FieldRefError(
                f"{self._written()!r} names {len(found)} fields; the data has "
                f"{_field_list(schema_or_type)}", ref=self, schema=schema_or_type,
                arrow_message=(f"Multiple matches for {self.to_string()} in "
                               f"{_describe(schema_or_type)}"),
                name=self._written())
        return found[0]

    def _written(self) -> str:
        """The ref as a person writes it: `a`, `s.x`, `[0]`."""
        parts = []
        for leaf in self.leaves():
            if isinstance(leaf.impl, str):
                parts.append(("." if parts else "") + leaf.impl)
            else:
                parts.append("".join(f"[{i}]" for i in leaf.impl.indices))
        return "".join(parts)

    def resolve(self, schema_or_type) -> tuple[FieldPath, pa.Field]:
        path = self.find_one(schema_or_type)
        return path, path.get(schema_or_type)


def _leaf_matches(leaf: FieldRef, parent) -> list[tuple[int, ...]]:
    if not isinstance(parent, (pa.Schema, pa.StructType)):
        return []
    if isinstance(leaf.impl, str):  # Arrow's name index: the same cost however wide
        return [(i,) for i in sorted(parent.get_all_field_indices(leaf.impl))]
    path = leaf.impl
    return [path.indices] if path.get(parent) is not None else []


_LISTED_FIELDS = 12


def _field_list(schema_or_type) -> str:
    """`3 fields: a (int64), b (string), c (double)`, the first dozen of them."""
    fields = children_of(schema_or_type) or []
    shown = ", ".join(f"{visible(f.name)} ({f.type})" for f in fields[:_LISTED_FIELDS])
    more = f", and {len(fields) - _LISTED_FIELDS} more" if len(fields) > _LISTED_FIELDS else ""
    return f"{len(fields)} field{'s' if len(fields) != 1 else ''}: {shown}{more}"


def _no_match_message(ref: FieldRef, schema_or_type) -> str:
    """One line naming the field and a close name, then the fields there are."""
    written = ref._written()
    leaf = ref.leaves()[-1]
    fields = children_of(schema_or_type) or []
    hint = ""
    if isinstance(leaf.impl, str) and len(ref.leaves()) == 1:
        names = [f.name for f in fields]
        exact = [n for n in names if n.lower() == leaf.impl.lower()]
        close = exact or difflib.get_close_matches(leaf.impl, names, n=1, cutoff=0.6)
        if close:
            hint = f"; did you mean {close[0]!r}?"
    return f"no field {written!r}{hint}\nthe data has {_field_list(schema_or_type)}"


def _describe(schema_or_type) -> str:
    if isinstance(schema_or_type, pa.Schema):  # Arrow's Schema::ToString: one `name: type` per line
        return "\n".join(f"{f.name}: {f.type}{'' if f.nullable else ' not null'}"
                         for f in schema_or_type)
    return str(schema_or_type)


def _as_ref(part: RefPart) -> FieldRef:
    if isinstance(part, FieldRef):
        return part
    return FieldRef(part)


def _single(part: RefPart):
    if isinstance(part, FieldRef):
        return part.impl
    if isinstance(part, FieldPath):
        return part
    if isinstance(part, bool):
        raise BuildError("a FieldRef part must be a name (str) or an index (int), not bool")
    if isinstance(part, int):
        return FieldPath([part])
    if isinstance(part, str):
        return part
    if isinstance(part, (list, tuple)):
        return _flatten([_as_ref(p) for p in part])
    raise BuildError(f"a FieldRef part must be a str, int, FieldPath or FieldRef, not "
                     f"{type(part).__name__}")


def _flatten(children: list[FieldRef]):
    """Arrow's FieldRef::Flatten."""
    out: list[FieldRef] = []
    _flatten_into(children, out)
    if not out:
        return ()
    if len(out) == 1:
        return out[0].impl
    return tuple(out)


def _flatten_into(children: list[FieldRef], out: list[FieldRef]) -> None:
    flat: list[FieldRef] = []
    for child in children:
        impl = child.impl
        if isinstance(impl, str):
            flat.append(child)
        elif isinstance(impl, FieldPath):
            if impl.indices:
                flat.append(child)
        else:
            if impl:
                _flatten_into(list(impl), flat)
    if not flat:
        return
    if all(isinstance(c.impl, FieldPath) for c in flat):
        indices = [i for c in flat for i in c.impl.indices]
        out.append(FieldRef(FieldPath(indices)))
    else:
        out.extend(flat)
