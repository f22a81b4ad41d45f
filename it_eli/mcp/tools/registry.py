"""Tool specifications: name, description, parameter Struct, result Struct, async function.

msgspec Structs are the single source of the contract: the MCP input and output JSON schemas
are generated from them here, arguments are validated by decoding into the parameter Struct,
and results are encoded from the result Struct. The server and the CLI both go through `call`.
"""

from __future__ import annotations

import difflib
import logging
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import msgspec.inspect

from it_eli.runtime.audit import UNKNOWN_TOOL
from it_eli.runtime.deadline import within_deadline
from it_eli.runtime.errors import InvalidArg, ItEliError
from it_eli.runtime.workers import ClientGate
from it_eli.search.indexdir import collecting_serving_notes

log = logging.getLogger(__name__)


class ToolError(msgspec.Struct, kw_only=True):
    """The structured body of every failed tool call (isError=true)."""

    code: str
    message: str
    valid: str | None = None
    details: dict[str, Any] = msgspec.field(default_factory=dict)


class ToolSpec(msgspec.Struct, frozen=True):
    name: str
    description: str
    params: type
    result: type
    fn: Callable[..., Awaitable[Any]]
    read_only: bool = True
    open_world: bool = False  # True when the tool talks to a live upstream


TOOLS: dict[str, ToolSpec] = {}


def tool(name: str, params: type, result: type, *, read_only: bool = True, open_world: bool = False):
    """Register an async function `fn(app, **params)` as a tool; its docstring is the description."""

    def deco(fn):
        TOOLS[name] = ToolSpec(
            name=name,
            description=_doc(fn),
            params=params,
            result=result,
            fn=fn,
            read_only=read_only,
            open_world=open_world,
        )
        return fn

    return deco


def _doc(fn) -> str:
    return " ".join((fn.__doc__ or "").split())


def _inline_schema(t: type) -> dict[str, Any]:
    """JSON schema of a Struct with the root inlined (MCP wants type: object at the root)."""
    (root,), components = msgspec.json.schema_components([t], ref_template="#/$defs/{name}")
    name = root["$ref"].rsplit("/", 1)[1]
    schema = dict(components.pop(name))
    if components:
        schema["$defs"] = components
    # a self-reference to the root would dangle once inlined
    schema.setdefault("type", "object")
    return schema


def input_schema(spec: ToolSpec) -> dict[str, Any]:
    s = _inline_schema(spec.params)
    s.pop("title", None)
    s["additionalProperties"] = False  # decode_args refuses what the schema does not name
    for name, prop in s.get("properties", {}).items():
        if _takes_number_as_string(_field_kinds(spec.params).get(name, ())):
            _also_integer(prop)  # say what decode_args accepts, so a validating client sends 24
    return s


def _takes_number_as_string(types: tuple[msgspec.inspect.Type, ...]) -> bool:
    return any(isinstance(t, msgspec.inspect.StrType) for t in types) and not any(
        isinstance(t, _NUMBER_KINDS) for t in types)


def _also_integer(prop: dict[str, Any]) -> None:
    """Let a string property's schema take an integer too (its digits are the identifier)."""
    for branch in prop.get("anyOf", [prop]):
        if branch.get("type") == "string":
            branch["type"] = ["string", "integer"]


def output_schema(spec: ToolSpec) -> dict[str, Any]:
    """The result's schema with its definitions inlined and nullable simple types as type lists:
    the same contract, which a client validates on every call (the Python SDK with jsonschema)
    in half the time ($ref resolution and anyOf branches were most of a case search's round trip)."""
    schema = _inline_schema(spec.result)
    try:
        return _flatten({k: v for k, v in schema.items() if k != "$defs"}, schema.get("$defs", {}), ())
    except _Recursive:
        return schema


_ANNOTATIONS = {"title", "description", "default", "examples"}


def _flatten(node: Any, defs: dict[str, Any], stack: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_flatten(x, defs, stack) for x in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and len(node) == 1:
        name = ref.rsplit("/", 1)[1]
        if name in stack:  # a recursive type cannot be inlined
            raise _Recursive(name)
        return _flatten(defs[name], defs, (*stack, name))
    out = {k: _flatten(v, defs, stack) for k, v in node.items()}
    branches = out.get("anyOf")
    if isinstance(branches, list) and set(out) - {"anyOf"} <= _ANNOTATIONS and all(
            isinstance(b, dict) and set(b) == {"type"} and isinstance(b["type"], str) for b in branches):
        del out["anyOf"]
        out["type"] = [b["type"] for b in branches]
    return out


class _Recursive(Exception):
    pass


MAX_GUESSES = 5
MAX_GUESS_CHARS = 64


class _Args(msgspec.Struct, frozen=True):
    """What a parameter Struct's fields are, worked out once per type (msgspec.structs.fields
    evaluates every annotation again at each call: it was a third of a light call's CPU)."""

    names: tuple[str, ...]  # as the client writes them
    known: frozenset[str]
    attrs: tuple[str, ...]  # as the tool function takes them
    listing: str  # for error messages


_ARGS: dict[type, _Args] = {}


def _args_of(params: type) -> _Args:
    info = _ARGS.get(params)
    if info is None:
        fields = msgspec.structs.fields(params)
        names = [f.encode_name for f in fields]
        info = _ARGS[params] = _Args(
            names=tuple(names), known=frozenset(names), attrs=tuple(f.name for f in fields),
            listing=", ".join(names) if names else "none (this tool takes no arguments)",
        )
    return info


def decode_args(spec: ToolSpec, arguments: dict[str, Any] | None) -> Any:
    """The arguments as the tool's parameter Struct. An argument the tool does not have is an
    error, never silently dropped: a misspelt filter (`sezione`, `annno`) would otherwise give
    unfiltered results that look filtered."""
    info = _args_of(spec.params)
    names, fields = info.names, info.listing
    if arguments is not None and not isinstance(arguments, dict):
        raise InvalidArg(f"{spec.name}: arguments must be an object", valid=f"an object with: {fields}")
    unknown = [k for k in (arguments or {}) if k not in info.known]
    if unknown:
        # bounded: a did-you-mean for the first few short names only (340k unknown names, or one
        # of a megabyte, must not cost seconds of difflib)
        guesses = {k: difflib.get_close_matches(str(k).lower(), names, n=1, cutoff=0.6)
                   for k in unknown[:MAX_GUESSES] if len(str(k)) <= MAX_GUESS_CHARS}
        hint = "; ".join(f"{str(k)[:60]!r}: did you mean {g[0]!r}" for k, g in guesses.items() if g)
        raise InvalidArg(
            f"{spec.name}: unknown argument{'s' if len(unknown) > 1 else ''} "
            + ", ".join(repr(str(k)[:60]) for k in unknown[:10]) + (f" (and {len(unknown) - 10} more)" if len(unknown) > 10 else ""),
            valid=(hint + "? " if hint else "") + f"arguments: {fields} (see the tool's input schema)",
        )
    try:
        return msgspec.convert(_numbers_as_strings(spec.params, arguments or {}), spec.params, strict=False)
    except msgspec.ValidationError as exc:
        raise InvalidArg(f"{spec.name}: {exc}", valid=_valid_for(spec.params, str(exc)) or
                         f"arguments: {fields} (see the tool's input schema)")


def _field_kinds(params: type) -> dict[str, tuple[msgspec.inspect.Type, ...]]:
    """Each argument's accepted types, unwrapped from Annotated/Meta and unions."""
    kinds = _KINDS.get(params)
    if kinds is None:
        kinds = {}
        for field in msgspec.inspect.type_info(params).fields:
            ftype = field.type.type if isinstance(field.type, msgspec.inspect.Metadata) else field.type
            types = ftype.types if isinstance(ftype, msgspec.inspect.UnionType) else (ftype,)
            kinds[field.encode_name] = tuple(t.type if isinstance(t, msgspec.inspect.Metadata) else t for t in types)
        _KINDS[params] = kinds
    return kinds


_KINDS: dict[type, dict[str, tuple[msgspec.inspect.Type, ...]]] = {}
_NUMBER_KINDS = (msgspec.inspect.IntType, msgspec.inspect.FloatType)


def _numbers_as_strings(params: type, arguments: dict[str, Any]) -> dict[str, Any]:
    """A JSON number where the schema says string becomes that string (`article=24` -> "24").

    Clients send identifiers as numbers (MCP Inspector types `article=24` as 24); the number
    means the same identifier, so refusing it only breaks the call. Booleans are not numbers here."""
    kinds = _field_kinds(params)
    out = None
    for name, value in arguments.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        types = kinds.get(name, ())
        if _takes_number_as_string(types):
            out = dict(arguments) if out is None else out
            out[name] = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
    return arguments if out is None else out


_WHAT = (
    (msgspec.inspect.StrType, "a string (a number is taken as its digits)"),
    (msgspec.inspect.IntType, "an integer"),
    (msgspec.inspect.FloatType, "a number"),
    (msgspec.inspect.BoolType, "true or false"),
    (msgspec.inspect.NoneType, "null"),
)


def _valid_for(params: type, error: str) -> str | None:
    """For an argument with a fixed set of values, the values (what msgspec's error lacks)."""
    m = re.search(r"at `\$\.(\w+)`", error)
    if not m:
        return None
    info = msgspec.inspect.type_info(params)
    field = next((f for f in info.fields if f.encode_name == m.group(1)), None)
    if field is None:
        return None
    ftype = field.type.type if isinstance(field.type, msgspec.inspect.Metadata) else field.type
    types = ftype.types if isinstance(ftype, msgspec.inspect.UnionType) else (ftype,)
    types = tuple(t.type if isinstance(t, msgspec.inspect.Metadata) else t for t in types)
    values = [v for t in types if isinstance(t, msgspec.inspect.LiteralType) for v in t.values]
    if values:
        return f"{field.encode_name}: one of " + ", ".join(repr(v) for v in values)
    for t in types:
        if isinstance(t, msgspec.inspect.IntType) and (t.ge is not None or t.le is not None):
            if t.le is None:
                return f"{field.encode_name}: an integer >= {t.ge}"
            return f"{field.encode_name}: an integer from {t.ge if t.ge is not None else '…'} to {t.le}"
    if "Expected" in error:
        # a wrong JSON type: say which types this argument takes
        what = [w for kind, w in _WHAT if any(isinstance(t, kind) for t in types)]
        if what:
            return f"{field.encode_name}: " + " or ".join(what)
    return None


def _deadline(app) -> float | None:
    settings = getattr(app, "settings", None)
    return getattr(settings, "call_deadline", None) or None


MAX_ERROR_TEXT = 2000


def _cap(text: str) -> str:
    return text if len(text) <= MAX_ERROR_TEXT else text[:MAX_ERROR_TEXT] + f"… [{len(text) - MAX_ERROR_TEXT} more characters]"


async def call(app, name: str, arguments: dict[str, Any] | None, *, client: Any = None) -> tuple[bool, dict[str, Any]]:
    """Run one tool. Returns (is_error, structured result as builtins).

    `client` (the MCP session) is admitted through the per-client caps (it_eli/runtime/workers.py); the
    call runs under its deadline (it_eli/runtime/deadline.py)."""
    is_error, out, _ = await call_encoded(app, name, arguments, client=client)
    return is_error, out


def _add_notes(out: dict[str, Any], notes: list[str]) -> None:
    """Put what the indexes said while serving (an earlier build standing in for a corrupt one)
    first in the answer's notes (or warnings): the caller must know what it reads from."""
    for field in ("notes", "warnings"):
        if notes and isinstance(out.get(field), list):
            out[field][:0] = [n for n in notes if n not in out[field]]
            return


async def call_encoded(app, name: str, arguments: dict[str, Any] | None, *,
                       client: Any = None) -> tuple[bool, dict[str, Any], bytes]:
    """`call`, plus the answer encoded as JSON: encoded once here, it is both the size the audit
    line records and the text the MCP adapter sends."""
    from . import load_all

    load_all()
    spec = TOOLS.get(name)
    started = time.monotonic()
    if spec is None:
        err = ToolError(code="invalid_arg", message=f"unknown tool {str(name)[:100]!r}", valid="one of: " + ", ".join(sorted(TOOLS)))
        out = msgspec.to_builtins(err)
        body = msgspec.json.encode(out)
        audit = getattr(app, "audit", None)
        if audit is not None:
            # the name is client-chosen text (it may carry client data): not written verbatim
            audit.record(UNKNOWN_TOOL, arguments, out, time.monotonic() - started, "invalid_arg",
                         output_bytes=len(body))
        return True, out, body
    try:
        params = decode_args(spec, arguments)
        kwargs = {a: getattr(params, a) for a in _args_of(spec.params).attrs}
        gate = app.extras.setdefault("client_gate", ClientGate()) if hasattr(app, "extras") else ClientGate()
        with collecting_serving_notes() as index_notes:
            async with gate.admit(client):
                result = await within_deadline(spec.fn(app, **kwargs), _deadline(app), name)
        out = msgspec.to_builtins(result)
        _add_notes(out, index_notes)
        is_error = bool(getattr(result, "is_error", False))
        status = "error" if is_error else "ok"
    except ItEliError as exc:
        # Messages may quote the caller's input: cap them so an error never breaks the answer budget.
        out = msgspec.to_builtins(ToolError(
            code=exc.code, message=_cap(exc.message), valid=_cap(exc.valid) if exc.valid else exc.valid,
            details={k: _cap(v) if isinstance(v, str) else v for k, v in exc.details.items()},
        ))
        is_error, status = True, exc.code
    except Exception as exc:  # never a traceback to the client
        log.exception("tool %s failed", name)
        out = msgspec.to_builtins(
            ToolError(code="internal_error", message=f"{type(exc).__name__}: {str(exc)[:300]}", valid=None)
        )
        is_error, status = True, "internal_error"
    body = msgspec.json.encode(out)
    audit = getattr(app, "audit", None)
    if audit is not None:
        audit.record(name, arguments, out, time.monotonic() - started, status, output_bytes=len(body))
    return is_error, out, body
