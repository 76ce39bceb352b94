"""The one JSON form of every measurement record: the bench's files, the results shipped under
assets/ and the ones the app keeps in build/ (issue 50).

A record is a frozen dataclass; its JSON is its fields plus two of the envelope's: `schema`
(SCHEMA, bumped whenever a record changes shape) and `record` (the record's class name). A file
is untrusted: `from_data` reads it only at this schema and as the record asked for, then checks
every field's type from the records' hints (trace/schema.py: finite numbers, bounded texts,
enums by value), or through the record's own `decode(data, where)` where its fields hold maps
the hints cannot type (specdec/beyond/record.py). Anything else is one `RecordFileError` naming
where. Files written at an older schema are not read by special cases: scripts/convert_results.py
converted the shipped ones once, and a kept result of an older schema is measured again.
"""
from __future__ import annotations

import dataclasses
import json

from specdec.errors import InputError
from specdec.files import jsonstore
from specdec.trace import schema

SCHEMA = 3        # 1: the bench's flat dicts; 2: Bench with Machine and Clocks; 3: every record, with provenance
ENVELOPE = ("schema", "record")


class RecordFileError(InputError):
    """A file or entry that is not a record this version writes: the message says where and why."""


def to_data(record) -> dict:
    """The record as JSON-ready data: the envelope, then its fields (non-finite floats as None)."""
    return {"schema": SCHEMA, "record": type(record).__name__, **jsonstore.finite(dataclasses.asdict(record))}


def to_json(record, indent: int | None = None) -> str:
    return json.dumps(to_data(record), indent=indent, allow_nan=False)


def from_data(cls, data, where: str = "file"):
    """`data` (parsed JSON) as a `cls`, or RecordFileError saying where it is wrong."""
    if not isinstance(data, dict):
        raise RecordFileError(f"{where}: expected an object, got {type(data).__name__}")
    found = data.get("schema")
    if found != SCHEMA:
        raise RecordFileError(f"{where}: written at schema {found!r}; this version reads schema {SCHEMA} "
                              "(measure it again)")
    if data.get("record") != cls.__name__:
        raise RecordFileError(f"{where}: a {str(data.get('record'))[:40]!r}, not a {cls.__name__}")
    body = {k: v for k, v in data.items() if k not in ENVELOPE}
    decode = getattr(cls, "decode", None)      # a record whose fields the hints cannot type checks itself
    try:
        return decode(body, where) if decode else schema.decode(cls, body, where)
    except InputError as err:                  # trace/schema.py's TraceError, or the record's own error
        raise RecordFileError(str(err)) from None


def from_json(cls, raw: str | bytes, where: str = "file"):
    """A file's record: parsed within trace/schema.py's bounds, then from_data."""
    try:
        data = schema.parse(raw)
    except schema.TraceError as err:
        raise RecordFileError(str(err)) from None
    return from_data(cls, data, where)
