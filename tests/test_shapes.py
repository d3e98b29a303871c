"""Dimension comparison (``semantics.ops.shapes.dims_equal``): its fast paths give the answers of
``sympy.simplify``, and a long let-chain over a symbolic shape checks quickly."""

from __future__ import annotations

import random
import time

import pytest
import sympy

import relay
from relay.semantics.ops.shapes import dims_equal
from relay.semantics.syntax import ANY, Dim, dim_symbol, normalize_dim
from relay.semantics.text.printer import format_type

N, M = dim_symbol("n"), dim_symbol("m")


def simplify_answer(a: Dim, b: Dim) -> bool | None:
    """The answer ``dims_equal`` gave when it always called ``sympy.simplify``."""
    if a is ANY or b is ANY:
        return None
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    diff = sympy.simplify(sympy.Integer(0) + a - b)
    if diff == 0:
        return True
    if diff.is_number:
        return False
    return None


def random_dim(rng: random.Random, depth: int) -> sympy.Expr:
    """A random dimension over ``n`` and ``m``: sums, products, powers, floordiv and floormod
    by constants and by symbolic sizes."""
    if depth == 0 or rng.random() < 0.25:
        return rng.choice([sympy.Integer(rng.randint(0, 4)), N, M])
    a = random_dim(rng, depth - 1)
    b = random_dim(rng, depth - 1)
    match rng.randrange(6):
        case 0:
            return a + b
        case 1:
            return a - b
        case 2:
            return sympy.expand(a * b)
        case 3:
            return sympy.floor(a / rng.randint(1, 4))
        case 4:
            return sympy.Mod(a, rng.randint(1, 4))
        case _:
            return sympy.floor(a / (N + 1))


def equal_in_another_form(rng: random.Random, a: sympy.Expr) -> sympy.Expr:
    """``a`` rewritten without changing its value, so equal pairs are exercised too."""
    match rng.randrange(4):
        case 0:
            return sympy.expand(a)
        case 1:
            return (a + N) - N
        case 2:
            return sympy.expand(2 * a - a)
        case _:
            return sympy.factor(a)


@pytest.mark.slow
def test_dims_equal_agrees_with_simplify_on_random_dimensions() -> None:
    rng = random.Random(11)
    pairs: list[tuple[Dim, Dim]] = []
    for _ in range(250):
        a = random_dim(rng, 3)
        b = equal_in_another_form(rng, a) if rng.random() < 0.4 else random_dim(rng, 3)
        pairs.append((normalize_dim(a), normalize_dim(b)))
    pairs += [
        (3, 3),
        (3, 4),
        (N, ANY),
        (ANY, 2),
        (N + 1, N + 1),
        (N + 1, N),
        (N, M),
        (2 * sympy.floor(N / 2) + sympy.Mod(N, 2), N),
        (sympy.floor((N * N + N) / (N + 1)), N),  # equal only once simplify cancels
        (sympy.floor((N * N + N) / (N + 1)), N + 1),
        (sympy.Mod(N * M + M, N + 1), 0),
    ]
    answers = {True: 0, False: 0, None: 0}
    for a, b in pairs:
        expected = simplify_answer(a, b)
        assert dims_equal(a, b) is expected, (a, b)
        assert dims_equal(b, a) is expected, (b, a)
        answers[expected] += 1
    # The random pairs exercise every answer, so agreement is not vacuous.
    assert min(answers.values()) >= 10, answers


def test_long_symbolic_let_chain_checks_quickly() -> None:
    n = 2000
    lines = ['#[version = "0.0.5"]', "def @main(%x0: Tensor[(n, 4), float32]) {"]
    lines += [f"  let %x{i} = add(%x{i - 1}, 1f);" for i in range(1, n + 1)]
    lines += [f"  %x{n}", "}", ""]
    mod = relay.parse("\n".join(lines))
    start = time.perf_counter()
    info = relay.infer_types(mod)
    seconds = time.perf_counter() - start
    assert format_type(info.global_type("main")) == (
        "fn (Tensor[(n, 4), float32]) -> Tensor[(n, 4), float32]"
    )
    # With simplify on every comparison this took about 10 s (2,000 bindings at ~200/s); the
    # fast paths make it well under a second, so 5 s leaves room for a loaded machine.
    assert seconds < 5.0, seconds
