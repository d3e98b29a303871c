"""The loop IR's reference interpreter (``compiler.lower.evaluate``) and the default schedule of
tensor expressions (``compiler.lower.lower.lower_tensors``), on hand-built kernels checked
against numpy computed independently."""

from __future__ import annotations

import numpy as np
import pytest

from relay.compiler.lower import ir, te
from relay.compiler.lower.check import IllFormed, check_kernel
from relay.compiler.lower.evaluate import run_kernel
from relay.compiler.lower.lower import lower_tensors
from relay.compiler.lower.printer import expr_text, kernel_text
from relay.semantics.errors import UndefinedBehavior


def _lower(name: str, inputs: list[te.Placeholder], outputs: list[te.Tensor]) -> ir.Kernel:
    """``lower_tensors``, with the result checked for well-formedness."""
    kernel = lower_tensors(name, inputs, outputs)
    check_kernel(kernel)
    return kernel


def _binary_kernel(op: ir.BinOp, dtype: str, n: int) -> ir.Kernel:
    a = te.Placeholder(ir.Buffer("a", (ir.index(n),), dtype))
    b = te.Placeholder(ir.Buffer("b", (ir.index(n),), dtype))
    out_dtype = "bool" if op in ir.COMPARISONS else dtype
    c = te.compute(a.shape, out_dtype, lambda i: ir.Binary(op, a(*i), b(*i)), "c")
    return _lower("binary", [a, b], [c])


def test_int8_arithmetic_wraps() -> None:
    x = np.array([100, -128, 127, 5], dtype=np.int8)
    y = np.array([100, -1, 1, -7], dtype=np.int8)
    (add,) = run_kernel(_binary_kernel(ir.BinOp.ADD, "int8", 4), [x, y])
    (mul,) = run_kernel(_binary_kernel(ir.BinOp.MUL, "int8", 4), [x, y])
    expected_add = ((x.astype(np.int64) + y + 128) % 256 - 128).astype(np.int8)
    expected_mul = ((x.astype(np.int64) * y + 128) % 256 - 128).astype(np.int8)
    np.testing.assert_array_equal(add, expected_add)
    np.testing.assert_array_equal(mul, expected_mul)


def test_integer_division_truncates() -> None:
    x = np.array([7, -7, 7, -7, 0, 9], dtype=np.int32)
    y = np.array([2, 2, -2, -2, 3, -4], dtype=np.int32)
    (q,) = run_kernel(_binary_kernel(ir.BinOp.DIV, "int32", 6), [x, y])
    (r,) = run_kernel(_binary_kernel(ir.BinOp.MOD, "int32", 6), [x, y])
    (fq,) = run_kernel(_binary_kernel(ir.BinOp.FLOORDIV, "int32", 6), [x, y])
    (fr,) = run_kernel(_binary_kernel(ir.BinOp.FLOORMOD, "int32", 6), [x, y])
    np.testing.assert_array_equal(q, np.trunc(x / y).astype(np.int32))
    np.testing.assert_array_equal(r, np.fmod(x, y))
    np.testing.assert_array_equal(fq, np.floor_divide(x, y))
    np.testing.assert_array_equal(fr, np.mod(x, y))


def test_division_by_zero_is_undefined() -> None:
    x = np.array([1], dtype=np.int16)
    y = np.array([0], dtype=np.int16)
    with pytest.raises(UndefinedBehavior):
        run_kernel(_binary_kernel(ir.BinOp.DIV, "int16", 1), [x, y])


def test_float16_rounds_once_per_operation() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=16).astype(np.float16)
    y = rng.normal(size=16).astype(np.float16)
    (prod,) = run_kernel(_binary_kernel(ir.BinOp.MUL, "float16", 16), [x, y])
    expected = (x.astype(np.float32) * y.astype(np.float32)).astype(np.float16)
    np.testing.assert_array_equal(prod, expected)


def test_max_propagates_nan() -> None:
    x = np.array([np.nan, 1.0, 2.0], dtype=np.float32)
    y = np.array([0.0, np.nan, 1.0], dtype=np.float32)
    (m,) = run_kernel(_binary_kernel(ir.BinOp.MAX, "float32", 3), [x, y])
    assert np.isnan(m[0]) and np.isnan(m[1]) and m[2] == 2.0


def test_reduction_and_inline_consumer_with_a_size_parameter() -> None:
    n = ir.SizeVar("n")
    a = te.Placeholder(ir.Buffer("a", (ir.Ref(n), ir.index(3)), "float32"))
    sq = te.compute(a.shape, "float32", lambda i: ir.Binary(ir.BinOp.MUL, a(*i), a(*i)), "sq")
    s = te.reduce((ir.Ref(n),), "float32", (ir.index(3),), "sum", lambda i, r: sq(i[0], r[0]), "s")
    c = te.compute(a.shape, "float32", lambda i: ir.Binary(ir.BinOp.DIV, sq(*i), s(i[0])), "c")
    kernel = _lower("normalise", [a], [c, s])
    assert kernel.sizes == (n,)
    x = np.arange(1, 13, dtype=np.float32).reshape(4, 3)
    out_c, out_s = run_kernel(kernel, [x])
    np.testing.assert_allclose(out_s, (x * x).sum(axis=1), rtol=1e-6)
    np.testing.assert_allclose(out_c, x * x / (x * x).sum(axis=1, keepdims=True), rtol=1e-6)


def test_reduction_output_straight_into_the_output_buffer() -> None:
    a = te.Placeholder(ir.Buffer("a", (ir.index(2), ir.index(5)), "int32"))
    m = te.reduce((ir.index(2),), "int32", (ir.index(5),), "max", lambda i, r: a(i[0], r[0]), "m")
    kernel = _lower("rowmax", [a], [m])
    assert not any(
        isinstance(s, ir.Allocate) and s.buffer is m.buffer for s in ir.walk_stmt(kernel.body)
    )
    x = np.array([[3, -1, 9, 2, 0], [-5, -6, -7, -8, -9]], dtype=np.int32)
    (out,) = run_kernel(kernel, [x])
    np.testing.assert_array_equal(out, x.max(axis=1))


def test_out_of_bounds_load_is_an_error() -> None:
    a = te.Placeholder(ir.Buffer("a", (ir.index(3),), "float32"))
    c = te.compute(
        a.shape, "float32", lambda i: a(ir.Binary(ir.BinOp.ADD, i[0], ir.index(1))), "shift"
    )
    with pytest.raises(IndexError):
        run_kernel(_lower("shift", [a], [c]), [np.zeros(3, np.float32)])


def test_cast_float_to_int_truncates_and_out_of_range_is_undefined() -> None:
    a = te.Placeholder(ir.Buffer("a", (ir.index(4),), "float32"))
    c = te.compute(a.shape, "int8", lambda i: ir.Cast("int8", a(*i)), "cast")
    kernel = _lower("cast", [a], [c])
    (out,) = run_kernel(kernel, [np.array([1.9, -1.9, 127.5, -128.9], np.float32)])
    np.testing.assert_array_equal(out, np.array([1, -1, 127, -128], np.int8))
    with pytest.raises(UndefinedBehavior):
        run_kernel(kernel, [np.array([np.nan, 0, 0, 0], np.float32)])


# ---------------------------------------------------------------------------------------------
# The printer and the well-formedness check


def test_kernel_text() -> None:
    n = ir.SizeVar("n")
    a = te.Placeholder(ir.Buffer("a", (ir.Ref(n), ir.index(4)), "float32"))
    b = te.Placeholder(ir.Buffer("b", (ir.Ref(n), ir.index(4)), "float32"))
    c = te.compute(
        a.shape,
        "float32",
        lambda i: ir.Call("exp", (ir.Binary(ir.BinOp.ADD, a(*i), b(*i)),), "float32"),
        "c",
    )
    text = kernel_text(_lower("add_exp", [a, b], [c]))
    assert text == (
        "kernel add_exp(a: float32[n, 4], b: float32[n, 4]) -> (out: float32[n, 4]) sizes(n):\n"
        "  for i0 in 0..n (parallel):\n"
        "    for i1 in 0..4:\n"
        "      out[i0, i1] = exp(a[i0, i1] + b[i0, i1])\n"
    )


def test_printer_parenthesises_by_precedence() -> None:
    x, y = ir.const(1, "int32"), ir.const(2, "int32")
    e = ir.Binary(
        ir.BinOp.MUL,
        ir.Binary(ir.BinOp.ADD, x, y),
        ir.Binary(ir.BinOp.SUB, x, ir.Unary(ir.UnOp.NEG, y)),
    )
    assert expr_text(e) == "(1i32 + 2i32) * (1i32 - -2i32)"
    assert (
        expr_text(ir.Binary(ir.BinOp.SUB, x, ir.Binary(ir.BinOp.SUB, x, y)))
        == "1i32 - (1i32 - 2i32)"
    )


def _kernel(body: ir.Stmt, *buffers: ir.Buffer, sizes: tuple[ir.SizeVar, ...] = ()) -> ir.Kernel:
    return ir.Kernel("k", buffers[:-1], buffers[-1:], sizes, body)


def test_check_accepts_what_lower_tensors_makes() -> None:
    n = ir.SizeVar("n")
    a = te.Placeholder(ir.Buffer("a", (ir.Ref(n), ir.index(3)), "float32"))
    s = te.reduce((ir.Ref(n),), "float32", (ir.index(3),), "sum", lambda i, r: a(i[0], r[0]), "s")
    c = te.compute(a.shape, "float32", lambda i: ir.Binary(ir.BinOp.SUB, a(*i), s(i[0])), "c")
    check_kernel(_lower("centre", [a], [c]))


@pytest.mark.parametrize(
    "case",
    [
        "unbound",
        "twice",
        "dtype",
        "indices",
        "unallocated",
        "carried",
        "select",
        "size",
        "index_dtype",
        "literal",
    ],
)
def test_check_rejects(case: str) -> None:
    a = ir.Buffer("a", (ir.index(4),), "float32")
    out = ir.Buffer("out", (ir.index(4),), "float32")
    i, j = ir.LoopVar("i"), ir.LoopVar("j")
    load = ir.Load(a, (ir.Ref(i),))
    ok_store = ir.Store(out, (ir.Ref(i),), load)
    loop = ir.For(i, ir.index(4), ir.LoopKind.SERIAL, ok_store)
    check_kernel(_kernel(loop, a, out))
    bodies: dict[str, ir.Stmt] = {
        "unbound": ir.Store(out, (ir.Ref(j),), load),
        "twice": ir.Seq((loop, loop)),
        "dtype": ir.For(
            i, ir.index(4), ir.LoopKind.SERIAL, ir.Store(out, (ir.Ref(i),), ir.Cast("int32", load))
        ),
        "indices": ir.For(
            i, ir.index(4), ir.LoopKind.SERIAL, ir.Store(out, (ir.Ref(i), ir.Ref(i)), load)
        ),
        "unallocated": ir.For(
            i,
            ir.index(4),
            ir.LoopKind.SERIAL,
            ir.Store(
                out,
                (ir.Ref(i),),
                ir.Load(ir.Buffer("t", (ir.index(4),), "float32", scope="local"), (ir.Ref(i),)),
            ),
        ),
        "carried": ir.For(
            i, ir.index(4), ir.LoopKind.PARALLEL, ir.Store(out, (ir.index(0),), load)
        ),
        "select": ir.For(
            i,
            ir.index(4),
            ir.LoopKind.SERIAL,
            ir.Store(out, (ir.Ref(i),), ir.Select(load, load, load)),
        ),
        "size": ir.For(i, ir.Ref(ir.SizeVar("m")), ir.LoopKind.SERIAL, ok_store),
        "index_dtype": ir.For(
            i, ir.index(4), ir.LoopKind.SERIAL, ir.Store(out, (ir.Cast("int32", ir.Ref(i)),), load)
        ),
        "literal": ir.Store(out, (ir.index(0),), ir.Const(1, "float32")),
    }
    with pytest.raises(IllFormed):
        check_kernel(_kernel(bodies[case], a, out))


def test_lower_primitive_fuses_an_elementwise_consumer_into_a_reduction() -> None:
    import relay
    from relay.compiler.lower.lower import lower_primitive, size_bindings

    mod = relay.parse(
        '#[version = "0.0.5"]\n'
        "def @main(%x: Tensor[(n, 3), float32]) {\n"
        "  let %s = sum(%x, axis=[1]);\n"
        "  (exp(%s), add(%x, 1f))\n"
        "}\n"
    )
    kernel = lower_primitive(mod["main"], "fused")
    check_kernel(kernel)
    assert len(kernel.inputs) == 1 and len(kernel.outputs) == 2 and len(kernel.sizes) == 1
    # exp is applied at the reduction's store: no local buffer holds the sum.
    assert not any(
        isinstance(s, ir.Allocate) and s.buffer.shape != (ir.index(1),)
        for s in ir.walk_stmt(kernel.body)
    )
    x = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
    sizes = size_bindings(kernel, [x.shape], [(2,), (2, 3)])
    e, a = run_kernel(kernel, [x], sizes)
    np.testing.assert_allclose(e, np.exp(x.sum(axis=1)), rtol=1e-6)
    np.testing.assert_array_equal(a, x + 1)


def _chain(op_text: str, count: int, *, reduce_first: bool = False) -> str:
    """A Relay function applying ``op_text`` (with ``%v`` for the running value) ``count``
    times to ``%x``, optionally after a ``sum`` (so that the chain is an epilogue)."""
    lines = ['#[version = "0.0.5"]', "def @main(%x: Tensor[(2, 3), float32]) {"]
    lines.append("  let %v0 = sum(%x, axis=[1], keepdims=True);" if reduce_first else "")
    if not reduce_first:
        lines.append("  let %v0 = %x;")
    for k in range(count):
        lines.append(f"  let %v{k + 1} = {op_text.replace('%v', f'%v{k}')};")
    lines.append(f"  %v{count}")
    lines.append("}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("reduce_first", [False, True])
def test_inlining_guard_bounds_expressions_of_operators_reading_their_input_twice(
    reduce_first: bool,
) -> None:
    # maximum is select(a > b, a, b): inlining 40 of them unguarded is a tree of 2^40 nodes.
    import relay
    from relay.compiler.lower.lower import INLINE_LIMIT, lower_primitive, tree_size

    mod = relay.parse(_chain("maximum(%v, multiply(%v, 0.5f))", 40, reduce_first=reduce_first))
    kernel = lower_primitive(mod["main"], "chain")
    check_kernel(kernel)
    for s in ir.walk_stmt(kernel.body):
        for root in ir.stmt_expressions(s):
            assert tree_size(root) <= 3 * INLINE_LIMIT
    assert any(isinstance(s, ir.Allocate) for s in ir.walk_stmt(kernel.body))
    x = (np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5) / 2
    expected = x.sum(axis=1, keepdims=True) if reduce_first else x
    for _ in range(40):
        expected = np.maximum(expected, expected * np.float32(0.5))
    (actual,) = run_kernel(kernel, [x])
    np.testing.assert_allclose(actual, expected, rtol=1e-6)


def test_a_deep_expression_evaluates_without_recursion() -> None:
    # 5000 nested negations in one store: deeper than Python's recursion limit.
    a = te.Placeholder(ir.Buffer("a", (ir.index(3),), "int32"))

    def element(i: te.Indices) -> ir.PrimExpr:
        e = a(*i)
        for _ in range(5000):
            e = ir.Unary(ir.UnOp.NEG, e)
        return e

    kernel = lower_tensors("deep", [a], [te.compute(a.shape, "int32", element, "deep")])
    x = np.array([1, -2, 3], dtype=np.int32)
    (out,) = run_kernel(kernel, [x])
    np.testing.assert_array_equal(out, x)


@pytest.mark.parametrize("reduce_first", [False, True])
def test_a_long_chain_of_calls_lowers_without_deep_recursion(reduce_first: bool) -> None:
    import relay
    from relay.compiler.lower.lower import lower_primitive

    mod = relay.parse(_chain("negative(add(%v, 1f))", 400, reduce_first=reduce_first))
    kernel = lower_primitive(mod["main"], "long")
    check_kernel(kernel)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    expected = x.sum(axis=1, keepdims=True) if reduce_first else x
    for _ in range(400):
        expected = -(expected + np.float32(1))
    (actual,) = run_kernel(kernel, [x])
    np.testing.assert_allclose(actual, expected, rtol=1e-6)
