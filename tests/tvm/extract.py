"""Extract the Relay programs of TVM 0.18's Python tests and standard library.

TVM is not vendored here: this script reads a checkout (or ``git archive`` export) of
TVM 0.18 and writes each program it finds to ``OUT/<test file>__<line>.relay``.

A program is the first argument of a call to one of TVM's text-format entry points
(``tvm.relay.parse``, ``tvm.relay.fromtext``, ``tvm.relay.parse_expr``, and the test
helpers built on them) when that argument is a string literal, a name bound to one, or a
literal joined to the version header (``SEMVER + "..."``). Calls inside
``pytest.raises`` blocks are left out: TVM rejected those programs on purpose. Strings built
with ``format``, ``%`` or f-strings are not standalone programs and are skipped.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import json
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

ENTRY_POINTS = {
    "parse",
    "fromtext",
    "parse_expr",
    "parse_module",
    "parse_text",
    "assert_parses_as",
    "assert_parse_module_as",
}
"""Callee names whose first argument is Relay text in TVM's tests."""

EXPRESSION_ENTRY_POINTS = {"parse_expr", "parse_text", "assert_parses_as"}
"""Those that read a bare expression rather than a module."""

VERSION = '#[version = "0.0.5"]'

DEVICE_TYPES = {"cpu": 1, "llvm": 1, "cuda": 2, "gpu": 2, "opencl": 4, "vulkan": 7, "metal": 8}
"""DLPack device type codes, by TVM's device names."""


class VirtualDeviceValue:
    """What ``tvm.target.VirtualDevice(device, target, memory_scope=...)`` held."""

    def __init__(self, device_type: int, device_id: int, memory_scope: str) -> None:
        self.device_type = device_type
        self.device_id = device_id
        self.memory_scope = memory_scope


class DeviceValue:
    """What ``tvm.device(name, id)`` held."""

    def __init__(self, name: object = "cpu", device_id: object = 0) -> None:
        code = DEVICE_TYPES.get(str(name).split()[0], 1) if not isinstance(name, int) else name
        self.device_type = code
        self.device_id = device_id if isinstance(device_id, int) else 0


class Stub:
    """A stand-in for any TVM (or other unavailable) object: every attribute and call gives
    another stub, except the few constructors a meta table is built from."""

    def __init__(self, path: str) -> None:
        self._path = path

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        return Stub(f"{self._path}.{name}")

    def __call__(self, *args: object, **kwargs: object) -> object:
        last = self._path.rsplit(".", 1)[-1]
        if last == "const":
            data = args[0] if args else kwargs.get("value")
            dtype = kwargs.get("dtype", args[1] if len(args) > 1 else None)
            array = np.asarray(data, dtype=str(dtype) if dtype else None)
            if dtype is None and array.dtype == np.float64 and not isinstance(data, np.ndarray):
                array = array.astype("float32")  # relay.const of a Python float is float32
            if dtype is None and array.dtype == np.int64 and not isinstance(data, np.ndarray):
                array = array.astype("int32")
            return array
        if last == "array" and ".nd" in self._path:
            return np.asarray(args[0])
        if last == "VirtualDevice":
            device = args[0] if args else kwargs.get("device")
            scope = kwargs.get("memory_scope", args[2] if len(args) > 2 else "")
            if isinstance(device, DeviceValue):
                return VirtualDeviceValue(device.device_type, device.device_id, str(scope))
            return VirtualDeviceValue(-1, -1, str(scope))
        if last == "device":
            return DeviceValue(*args)
        if last in DEVICE_TYPES:
            return DeviceValue(last, *args)
        return Stub(f"{self._path}()")

    def __iter__(self) -> Iterator[object]:
        return iter(())

    def __mro_entries__(self, bases: tuple[object, ...]) -> tuple[type, ...]:
        return (object,)


class _StubModule(types.ModuleType):
    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        return Stub(f"{self.__name__}.{name}")


@contextmanager
def _stubbed_imports() -> Iterator[None]:
    """Imports of anything but numpy and the standard library give stub modules."""
    real_import = builtins.__import__

    def fake_import(
        name: str,
        globals: object = None,
        locals: object = None,
        fromlist: object = (),
        level: int = 0,
    ) -> object:
        root = name.split(".")[0]
        if level > 0 or root in sys.stdlib_module_names or root == "numpy":
            return real_import(name, globals, locals, fromlist, level)  # type: ignore[arg-type]
        module = _StubModule(name if fromlist else root)
        return module

    builtins.__import__ = fake_import
    try:
        yield
    finally:
        builtins.__import__ = real_import


def _module_namespace(tree: ast.Module, path: Path) -> dict[str, object]:
    """Run a test file's top-level statements with TVM stubbed out, each on its own (a
    statement that fails is skipped): the namespace its meta tables are built in."""
    namespace: dict[str, object] = {"__name__": "tvm_test", "__file__": str(path)}
    with _stubbed_imports():
        for statement in tree.body:
            if isinstance(statement, ast.If):  # if __name__ == "__main__": ...
                continue
            code = compile(ast.Module(body=[statement], type_ignores=[]), str(path), "exec")
            try:
                exec(code, namespace)
            except Exception:
                continue
    return namespace


def _meta_table(
    node: ast.expr, scopes: list[ast.AST], namespace: dict[str, object]
) -> dict[str, list[object]] | None:
    """Evaluate a meta-table argument: a dict expression, or a name bound to one in the
    enclosing functions (whose earlier simple statements run first, outermost first) or the
    module."""
    local = dict(namespace)
    with _stubbed_imports():
        for scope in scopes:
            if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for statement in scope.body:
                if statement.lineno >= node.lineno:
                    break
                if isinstance(statement, ast.Assign | ast.AnnAssign):
                    code = compile(ast.Module(body=[statement], type_ignores=[]), "<meta>", "exec")
                    try:
                        exec(code, local)
                    except Exception:
                        continue
        try:
            value = eval(compile(ast.Expression(node), "<meta>", "eval"), local)
        except Exception:
            return None
    if not isinstance(value, dict):
        return None
    return {str(k): list(v) for k, v in value.items() if isinstance(v, list | tuple)}


def metadata_section(table: dict[str, list[object]]) -> str | None:
    """The ``#[metadata]`` text (TVM's JSON graph) for a meta table of constants and virtual
    devices, or ``None`` if it holds anything else."""
    nodes: list[dict[str, object]] = [{"type_key": ""}]
    arrays: list[str] = []
    from relay.semantics.text.metadata import encode_ndarray

    def add(node: dict[str, object]) -> int:
        nodes.append(node)
        return len(nodes) - 1

    def virtual_device(vd: VirtualDeviceValue | None) -> int:
        index = add({"type_key": "VirtualDevice"})
        scope = add(
            {"type_key": "runtime.String"}
            | ({"repr_str": vd.memory_scope} if vd is not None and vd.memory_scope else {})
        )
        nodes[index]["attrs"] = {
            "device_type_int": str(vd.device_type if vd else -1),
            "memory_scope": str(scope),
            "target": "0",
            "virtual_device_id": str(vd.device_id if vd else -1),
        }
        return index

    root = add({"type_key": "Map", "keys": list(table)})
    data: list[int] = []
    for entries in table.values():
        array_index = add({"type_key": "Array"})
        items: list[int] = []
        for entry in entries:
            if isinstance(entry, np.ndarray):
                constant = add({"type_key": "relay.Constant"})
                arrays.append(encode_ndarray(entry))
                nodes[constant]["attrs"] = {
                    "_checked_type_": "0",
                    "data": str(len(arrays) - 1),
                    "span": "0",
                    "virtual_device_": str(virtual_device(None)),
                }
                items.append(constant)
            elif isinstance(entry, VirtualDeviceValue):
                items.append(virtual_device(entry))
            else:
                return None
        nodes[array_index]["data"] = items
        data.append(array_index)
    nodes[root]["data"] = data
    graph = {
        "root": root,
        "nodes": nodes,
        "b64ndarrays": arrays,
        "attrs": {"tvm_version": "0.18.0"},
    }
    return "#[metadata]\n" + json.dumps(graph, indent=2, ensure_ascii=False) + "\n"


def _callee(node: ast.Call) -> str | None:
    match node.func:
        case ast.Attribute(attr=name) | ast.Name(id=name):
            return name
    return None


def _string_bindings(scope: ast.AST) -> dict[str, str]:
    """Names bound in one scope (a function or the module, not nested functions) to one
    string literal and never changed there.

    A name assigned twice, or extended with ``+=``, holds text built at run time.
    """
    values: dict[str, list[str | None]] = {}
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        todo.extend(ast.iter_child_nodes(node))
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                values.setdefault(target.id, []).append(_literal(node.value, {}))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            values.setdefault(node.target.id, []).append(None)
    return {
        name: texts[0] for name, texts in values.items() if len(texts) == 1 and texts[0] is not None
    }


def _literal(node: ast.expr, names: dict[str, str]) -> str | None:
    match node:
        case ast.Constant(value=str() as text):
            return text
        case ast.Name(id=name) if name in names:
            return names[name]
        case ast.Name(id="SEMVER"):
            return VERSION + "\n"
        case ast.BinOp(left=left, op=ast.Add(), right=right):
            a, b = _literal(left, names), _literal(right, names)
            if a is not None and b is not None:
                return a + b
    return None


def _module_bindings(scope: ast.AST, names: dict[str, str]) -> dict[str, str]:
    """Names bound in one scope to a module parsed from literal text (``m =
    tvm.relay.fromtext("...")``): name -> that text."""
    out: dict[str, str] = {}
    for node in ast.iter_child_nodes(scope):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and _callee(node.value) in ENTRY_POINTS - EXPRESSION_ENTRY_POINTS
            and node.value.args
        ):
            text = _literal(node.value.args[0], names)
            if text is not None:
                out[node.targets[0].id] = text
    return out


def _raising_lines(tree: ast.AST) -> set[int]:
    """Line numbers of calls inside ``with pytest.raises(...)`` blocks."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.With) and any(
            isinstance(item.context_expr, ast.Call) and _callee(item.context_expr) == "raises"
            for item in node.items
        ):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Call):
                    lines.add(inner.lineno)
    return lines


def _std_imports(tree: ast.AST) -> dict[str, str]:
    """Module names that a test fills from TVM's standard library (``NAME.import_from_std(
    "core.rly")``): name -> the library file's stem."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        match node:
            case ast.Call(
                func=ast.Attribute(value=ast.Name(id=name), attr="import_from_std"),
                args=[ast.Constant(value=str() as file), *_],
            ):
                out[name] = file.removesuffix(".rly")
    return out


PRELUDE_LINE = "// prelude: "
"""The first line of an extracted program whose test parsed it into a module already holding
one of TVM's standard-library files (``tvm.relay.parse(text, name, init_module)``)."""


def programs_in(path: Path) -> list[tuple[int, str, bool, str | None]]:
    """``(line, text, is_expression, prelude)`` for every program in one test file, where
    ``prelude`` is the text of the module it was parsed into, if the test gave one written
    out (``tvm.relay.parse(text, name, init_module)``); a program given a meta table (the
    fourth argument of ``tvm.relay.parse``, or ``init_meta_table=``) that can be rebuilt here
    gets it as a ``#[metadata]`` section."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    raising = _raising_lines(tree)
    found: list[tuple[int, str, bool, str | None]] = []
    namespace: dict[str, object] | None = None
    std = _std_imports(tree)
    # (scope node, names visible in it): a function sees its own bindings over the module's.
    scopes: list[tuple[list[ast.AST], dict[str, str]]] = [([tree], _string_bindings(tree))]
    while scopes:
        chain, names = scopes.pop()
        scope = chain[-1]
        todo = list(ast.iter_child_nodes(scope))
        while todo:
            node = todo.pop()
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                scopes.append(([*chain, node], {**names, **_string_bindings(node)}))
                continue
            todo.extend(ast.iter_child_nodes(node))
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = _callee(node)
            if name not in ENTRY_POINTS or node.lineno in raising:
                continue
            text = _literal(node.args[0], names)
            if text is None or not text.strip():
                continue
            meta = node.args[3] if len(node.args) > 3 else None
            for keyword in node.keywords:
                if keyword.arg == "init_meta_table":
                    meta = keyword.value
            init = node.args[2] if len(node.args) > 2 else None
            for keyword in node.keywords:
                if keyword.arg == "init_module":
                    init = keyword.value
            prelude: str | None = None
            if isinstance(init, ast.Name) and init.id in std:
                text = f"{PRELUDE_LINE}std__{std[init.id]}.module.relay\n{text}"
            elif isinstance(init, ast.Name):
                for outer in chain:
                    prelude = _module_bindings(outer, names).get(init.id, prelude)
            if meta is not None and "meta[" in text:
                if namespace is None:
                    namespace = _module_namespace(tree, path)
                table = _meta_table(meta, chain, namespace)
                section = metadata_section(table) if table is not None else None
                if section is not None:
                    text = text.rstrip() + "\n" + section
                    if prelude is not None and "meta[" in prelude:
                        prelude = prelude.rstrip() + "\n" + section
            found.append((node.lineno, text, name in EXPRESSION_ENTRY_POINTS, prelude))
    return sorted(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tvm", type=Path, help="a TVM 0.18 source tree")
    parser.add_argument("out", type=Path, help="folder to write the programs to")
    args = parser.parse_args(argv)
    tests = args.tvm / "tests" / "python" / "relay"
    if not tests.is_dir():
        print(f"extract: error: {tests} is not a folder", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    count = 0
    for path in sorted(tests.rglob("*.py")):
        for line, text, is_expr, prelude in programs_in(path):
            stem = path.relative_to(tests).with_suffix("").as_posix().replace("/", "_")
            kind = "expr" if is_expr else "module"
            if prelude is not None:
                prelude_name = f"{stem}__{line}.prelude"
                (args.out / prelude_name).write_text(prelude, encoding="utf-8")
                text = f"{PRELUDE_LINE}{prelude_name}\n{text}"
            if VERSION not in text:
                text = VERSION + "\n" + text
            (args.out / f"{stem}__{line}.{kind}.relay").write_text(text, encoding="utf-8")
            count += 1
    std = args.tvm / "python" / "tvm" / "relay" / "std"
    for rly in sorted(std.glob("*.rly")):
        (args.out / f"std__{rly.stem}.module.relay").write_text(rly.read_text("utf-8"), "utf-8")
        count += 1
    print(f"{count} programs written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
