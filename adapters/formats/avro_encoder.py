"""Avro binary encoding compiled from a schema: check that a value fits and encode it in one pass.

:func:`compile_fields_encoder` writes the source of ONE Python function per schema. It fits
exactly as :func:`lakesink.domain.schema.checker` decides and writes exactly fastavro's bytes
(both pinned by tests); a schema outside its scope (unions of several types, named-type
references) compiles to None and the writer keeps fastavro. See docs/formats.md, "Per format".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fastavro.write import LOGICAL_WRITERS

from lakesink.adapters.formats.avro_binary import (
    BYTE_DOUBLE,
    DOUBLE,
    INT_MAX,
    INT_MIN,
    LONG_MAX,
    LONG_MIN,
    SMALL,
    pack_float,
    varint,
    zigzag_varint,
)
from lakesink.domain.schema import Schema, checker
from lakesink.domain.schema.check import CHECKED_LOGICAL_TYPES
from lakesink.domain.schema.model import PRIMITIVES, kind, logical

Encode = Callable[[Any, bytearray], bool]
"""Appends the encoding of a value to the buffer and returns True, or returns False when the
value does not fit (the buffer may then end with part of an encoding: the caller cuts it off)."""

Read = Callable[[Any], Any]


class Unsupported(Exception):
    """The schema uses something this compiler leaves to fastavro."""


def compile_fields_encoder(fields: Sequence[tuple[Read, Schema]]) -> Encode | None:
    """Encodes what each ``read`` gives of one object with its schema, one after the other.

    That is the encoding of a record whose fields are those values (a record is its fields'
    encodings in order), checked field by field, without building the record: the Avro writer
    reads a Kafka record's value, or its envelope's fields, straight from the record. None when
    a schema is out of scope.

    In scope: unions of ``null`` and one type (either order) or of one type, records, arrays,
    maps, enums, fixed, primitives and the logical types both sides know. Unions of several types
    (fastavro's branch choice would have to be copied) and references to named types are not.
    Logical types, enums and fixed call the checker's own function for that node, and logical
    values go through fastavro's own ``LOGICAL_WRITERS``; floats that overflow a ``float`` become
    infinities as in fastavro.
    """
    try:
        return _Generator().function_of_fields(fields)
    except Unsupported:
        return None


class _Generator:
    """Writes the source of one encoder function; constants it needs go into its namespace.

    A union's branch index is passed down as ``prefix`` and written together with the first
    bytes of the branch's value (one ``out +=`` instead of two: most fields are unions).
    """

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._names = 0
        self._tables: dict[bytes, str] = {}
        self.namespace: dict[str, Any] = {
            "VARINT": varint,
            "LONG": zigzag_varint,
            "FLOAT": pack_float,
            "DOUBLE": DOUBLE.pack,
            "BYTE_DOUBLE": BYTE_DOUBLE.pack,
            "MAPPING": Mapping,
            "SEQUENCE": Sequence,
            "BINARY": (bytes, bytearray, memoryview),
            "TEXTS": (str, bytes, bytearray),
            "MISSING": object(),
        }

    def function(self, schema: Schema) -> Encode:
        self._emit(0, "def encode(v0, out):")
        self._node(schema, "v0", 1)
        return self._define()

    def function_of_fields(self, fields: Sequence[tuple[Read, Schema]]) -> Encode:
        self._emit(0, "def encode(v0, out):")
        for read, schema in fields:
            item = self._fresh("v")
            self._emit(1, f"{item} = {self._constant(read)}(v0)")
            self._node(schema, item, 1)
        return self._define()

    def _define(self) -> Encode:
        self._emit(1, "return True")
        exec(compile("\n".join(self._lines), "<avro encoder>", "exec"), self.namespace)
        encode: Encode = self.namespace["encode"]
        return encode

    def _emit(self, depth: int, line: str) -> None:
        self._lines.append("    " * depth + line)

    def _fresh(self, prefix: str) -> str:
        self._names += 1
        return f"{prefix}{self._names}"

    def _constant(self, value: Any) -> str:
        name = self._fresh("K")
        self.namespace[name] = value
        return name

    def _small(self, prefix: bytes) -> str:
        """The name of a table: ``prefix`` followed by each one-byte varint (0-127)."""
        if prefix not in self._tables:
            self._tables[prefix] = self._constant(tuple(prefix + SMALL[byte] for byte in range(128)))
        return self._tables[prefix]

    def _prefix(self, prefix: bytes, depth: int) -> None:
        if prefix:
            self._emit(depth, f"out += {prefix!r}")

    def _node(self, schema: Schema, var: str, depth: int, prefix: bytes = b"") -> None:  # noqa: C901
        if isinstance(schema, list):
            self._prefix(prefix, depth)
            self._union(schema, var, depth)
            return
        if isinstance(schema, str) and schema not in PRIMITIVES:
            raise Unsupported(f"reference to the named type {schema}")
        type_name, logical_type = kind(schema), logical(schema)
        prepare = LOGICAL_WRITERS.get(f"{type_name}-{logical_type}") if logical_type else None
        if logical_type in CHECKED_LOGICAL_TYPES:
            if prepare is None:
                raise Unsupported(f"{logical_type} on {type_name}")
            check, node = self._constant(checker(schema)), self._constant(schema)
            self._emit(depth, f"if not {check}({var}): return False")
            self._emit(depth, f"{var} = {self._constant(prepare)}({var}, {node})")
            self._encode_prepared(schema, type_name, var, depth, prefix)
        elif prepare is not None:
            raise Unsupported(f"fastavro prepares {logical_type} values that the checker does not know")
        elif type_name in ("record", "error", "array", "map"):
            self._prefix(prefix, depth)
            {"array": self._array, "map": self._map}.get(type_name, self._record)(schema, var, depth)
        elif type_name in ("enum", "fixed"):
            self._emit(depth, f"if not {self._constant(checker(schema))}({var}): return False")
            self._encode_prepared(schema, type_name, var, depth, prefix)
        else:
            self._primitive(type_name, var, depth, prefix)

    def _primitive(self, type_name: str, var: str, depth: int, prefix: bytes) -> None:
        emit = self._emit
        if type_name == "null":
            emit(depth, f"if {var} is not None: return False")
            self._prefix(prefix, depth)
        elif type_name == "boolean":
            true, false = prefix + b"\x01", prefix + b"\x00"
            emit(depth, f"if {var} is True: out += {true!r}")
            emit(depth, f"elif {var} is False: out += {false!r}")
            emit(depth, "else: return False")
        elif type_name in ("int", "long"):
            low, high = (INT_MIN, INT_MAX) if type_name == "int" else (LONG_MIN, LONG_MAX)
            emit(depth, f"if type({var}) is not int and (not isinstance({var}, int) or isinstance({var}, bool)): return False")
            emit(depth, f"if not {low} <= {var} <= {high}: return False")
            zigzag = self._fresh("z")
            emit(depth, f"{zigzag} = ({var} << 1) ^ ({var} >> 63)")
            emit(depth, f"out += {self._small(prefix)}[{zigzag}] if {zigzag} < 128 else {_after(prefix, f'VARINT({zigzag})')}")
        elif type_name in ("float", "double"):
            emit(depth, f"if type({var}) is not float and (not isinstance({var}, (int, float)) or isinstance({var}, bool)): return False")
            if type_name == "double" and len(prefix) == 1:
                emit(depth, f"out += BYTE_DOUBLE({prefix[0]}, {var})")
            else:
                self._prefix(prefix, depth)
                emit(depth, f"out += {'FLOAT' if type_name == 'float' else 'DOUBLE'}({var})")
        elif type_name == "string":
            emit(depth, f"if type({var}) is not str and not isinstance({var}, str): return False")
            self._text(var, depth, prefix)
        elif type_name == "bytes":
            emit(depth, f"if not isinstance({var}, BINARY): return False")
            self._bytes(var, depth, prefix)
        else:
            raise Unsupported(f"type {type_name}")

    def _encode_prepared(self, schema: Schema, type_name: str, var: str, depth: int, prefix: bytes) -> None:
        """Encode a value the checker accepted and fastavro's logical writer (if any) prepared."""
        if type_name in ("int", "long"):
            self._emit(depth, f"out += {_after(prefix, f'LONG({var})')}")
        elif type_name == "string":
            self._text(var, depth, prefix)
        elif type_name == "bytes":
            self._bytes(var, depth, prefix)
        elif type_name == "fixed":
            self._prefix(prefix, depth)
            self._emit(depth, f"out += {var}")
        elif type_name == "enum":
            index = self._constant({symbol: number for number, symbol in enumerate(schema["symbols"])})
            self._emit(depth, f"out += {_after(prefix, f'LONG({index}[{var}])')}")
        else:
            raise Unsupported(f"logical type on {type_name}")

    def _size(self, size: str, depth: int, prefix: bytes = b"") -> None:
        """Write the count or length ``size`` (a variable): ``prefix``, then its varint."""
        self._emit(
            depth,
            f"out += {self._small(prefix)}[{size} << 1] if {size} < 64 else {_after(prefix, f'VARINT({size} << 1)')}",
        )

    def _text(self, var: str, depth: int, prefix: bytes = b"") -> None:
        data, size = self._fresh("b"), self._fresh("n")
        self._emit(depth, f"{data} = {var}.encode()")
        self._emit(depth, f"{size} = len({data})")
        self._size(size, depth, prefix)
        self._emit(depth, f"out += {data}")

    def _bytes(self, var: str, depth: int, prefix: bytes) -> None:
        size = self._fresh("n")
        self._emit(depth, f"if type({var}) is not bytes: {var} = bytes({var})")
        self._emit(depth, f"{size} = len({var})")
        self._size(size, depth, prefix)
        self._emit(depth, f"out += {var}")

    def _union(self, branches: list[Schema], var: str, depth: int) -> None:
        others = [branch for branch in branches if branch != "null"]
        if len(others) != 1 or len(branches) - len(others) > 1:
            raise Unsupported(f"union {branches!r}")
        if len(branches) == 1:
            self._node(others[0], var, depth, prefix=SMALL[0])
            return
        null_index, other_index = (0, 1) if branches[0] == "null" else (1, 0)
        self._emit(depth, f"if {var} is None: out += {SMALL[null_index << 1]!r}")
        self._emit(depth, "else:")
        self._node(others[0], var, depth + 1, prefix=SMALL[other_index << 1])

    def _record(self, schema: Schema, var: str, depth: int) -> None:
        """Read every field first (a value that does not fit is refused before a byte is written),
        then encode them in order.

        A plain dict holding as many keys as the record has fields (the usual row) fits only if
        it holds every field, so its fields are read by subscript and a missing one refuses it;
        any other mapping goes the long way, with defaults for missing optional fields.
        """
        emit = self._emit
        fields = [(field, self._fresh("v"), _required(field)) for field in schema["fields"]]
        count = len(fields)
        size, get, missing = self._fresh("n"), self._fresh("g"), self._fresh("k")
        emit(depth, f"if type({var}) is dict and len({var}) == {count}:")
        emit(depth + 1, "try:")
        for field, item, _ in fields:
            emit(depth + 2, f"{item} = {var}[{field['name']!r}]")
        emit(depth + 1, "except KeyError: return False")
        emit(depth, f"elif not isinstance({var}, MAPPING) or len({var}) > {count}: return False")
        emit(depth, "else:")
        emit(depth + 1, f"{size}, {get}, {missing} = len({var}), {var}.get, 0")
        for field, item, required in fields:
            emit(depth + 1, f"{item} = {get}({field['name']!r}, MISSING)")
            emit(depth + 1, f"if {item} is MISSING: {'return False' if required else f'{missing} += 1'}")
        # Every key of the value must be a field: the fields found account for all of them.
        emit(depth + 1, f"if {size} + {missing} != {count}: return False")
        for field, item, required in fields:
            if required:
                self._node(field["type"], item, depth)
                continue
            emit(depth, f"if {item} is MISSING: out += {self._constant(_default_bytes(field))}")
            emit(depth, "else:")
            self._node(field["type"], item, depth + 1)

    def _array(self, schema: Schema, var: str, depth: int) -> None:
        item = self._fresh("v")
        self._emit(
            depth,
            f"if type({var}) is not list and (not isinstance({var}, SEQUENCE) or isinstance({var}, TEXTS)): "
            "return False",
        )
        self._blocks(var, depth)
        self._emit(depth + 1, f"for {item} in {var}:")
        self._node(schema["items"], item, depth + 2)
        self._emit(depth, "out += b'\\x00'")

    def _map(self, schema: Schema, var: str, depth: int) -> None:
        key, item = self._fresh("m"), self._fresh("v")
        self._emit(depth, f"if type({var}) is not dict and not isinstance({var}, MAPPING): return False")
        self._blocks(var, depth)
        self._emit(depth + 1, f"for {key}, {item} in {var}.items():")
        self._emit(depth + 2, f"if type({key}) is not str and not isinstance({key}, str): return False")
        self._text(key, depth + 2)
        self._node(schema["values"], item, depth + 2)
        self._emit(depth, "out += b'\\x00'")

    def _blocks(self, var: str, depth: int) -> None:
        """One block holding every item (fastavro's layout); the caller ends it with a zero count."""
        size = self._fresh("n")
        self._emit(depth, f"{size} = len({var})")
        self._emit(depth, f"if {size}:")
        self._size(size, depth + 1)


def _after(prefix: bytes, expression: str) -> str:
    """Source of the bytes ``prefix`` followed by what ``expression`` gives."""
    return f"{prefix!r} + {expression}" if prefix else expression


def _required(field: Mapping[str, Any]) -> bool:
    """Whether a record value must hold the field (the checker's rule): no default, not nullable."""
    field_type = field["type"]
    nullable = field_type == "null" or (isinstance(field_type, list) and "null" in field_type)
    return "default" not in field and not nullable


def _default_bytes(field: Mapping[str, Any]) -> bytes:
    """What fastavro writes for a missing field: its default, or null without one."""
    encode = _Generator().function(field["type"])
    out = bytearray()
    if not encode(field.get("default"), out):
        raise Unsupported(f"the default of field {field['name']!r} does not fit its type")
    return bytes(out)
