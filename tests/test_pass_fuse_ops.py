"""FuseOps groups operator calls by TVM's post-dominator rule; DefuseOps undoes it."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import relay
from relay.compiler.ir import rewrite_module
from relay.compiler.pass_manager import PassContext
from relay.compiler.passes.fuse_ops import DefuseOps, FuseOps, is_primitive
from relay.oracles.compare import compare_values
from relay.oracles.fuzz import REDUCTION_LENGTH, Case, cases
from relay.oracles.gen_dataflow import dataflow_programs
from relay.oracles.pass_oracle import check_pass, run_main
from relay.semantics.equality import alpha_equal
from relay.semantics.syntax import (
    Call,
    Expr,
    Function,
    IRModule,
    Op,
    TensorType,
    children,
    post_order,
)
from relay.semantics.values import TensorValue

HEADER = '#[version = "0.0.5"]\n'


def fused(src: str, p: FuseOps | None = None) -> IRModule:
    mod = relay.parse(HEADER + src)
    p = p or FuseOps()
    out = p(mod)
    assert check_pass(p, mod, None) is None
    return out


def assert_fuses(src: str, expected: str, p: FuseOps | None = None) -> None:
    out = fused(src, p)
    want = relay.parse(HEADER + expected)
    assert alpha_equal(out, want), relay.astext(out)


# ---------------------------------------------------------------------------------------------
# Networks


def test_dense_bias_relu_is_one_group() -> None:
    assert_fuses(
        """def @main(%x: Tensor[(1, 8), float32], %w: Tensor[(4, 8), float32],
                     %b: Tensor[(4), float32]) {
          %0 = nn.dense(%x, %w, units=4);
          %1 = nn.bias_add(%0, %b);
          nn.relu(%1)
        }""",
        """def @main(%x: Tensor[(1, 8), float32], %w: Tensor[(4, 8), float32],
                     %b: Tensor[(4), float32]) {
          %0 = fn (%p0: Tensor[(1, 8), float32], %p1: Tensor[(4, 8), float32],
                   %p2: Tensor[(4), float32], Primitive=1) -> Tensor[(1, 4), float32] {
            %1 = nn.dense(%p0, %p1, units=4);
            %2 = nn.bias_add(%1, %p2);
            nn.relu(%2)
          };
          %0(%x, %w, %b)
        }""",
    )


RESNET_BLOCK = """def @main(%x: Tensor[(1, 4, 6, 6), float32], %w1: Tensor[(4, 4, 3, 3), float32],
             %scale: Tensor[(4, 1, 1), float32], %shift: Tensor[(4, 1, 1), float32],
             %w2: Tensor[(4, 4, 3, 3), float32], %b2: Tensor[(4), float32],
             %wd: Tensor[(3, 4), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %1 = multiply(%0, %scale);
  %2 = add(%1, %shift);
  %3 = nn.relu(%2);
  %4 = nn.conv2d(%3, %w2, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %5 = nn.bias_add(%4, %b2);
  %6 = add(%5, %x);
  %7 = nn.relu(%6);
  %8 = mean(%7, axis=[2, 3]);
  %9 = nn.dense(%8, %wd, units=3);
  nn.softmax(%9)
}"""


def test_resnet_block_groups_conv_with_its_elementwise_tail() -> None:
    # conv+scale+shift+relu; conv+bias+residual add+relu; the global mean pool alone (a
    # reduction fuses nothing after it), the dense alone (softmax is not elementwise), the
    # softmax alone.
    assert_fuses(
        RESNET_BLOCK,
        """def @main(%x: Tensor[(1, 4, 6, 6), float32], %w1: Tensor[(4, 4, 3, 3), float32],
                     %scale: Tensor[(4, 1, 1), float32], %shift: Tensor[(4, 1, 1), float32],
                     %w2: Tensor[(4, 4, 3, 3), float32], %b2: Tensor[(4), float32],
                     %wd: Tensor[(3, 4), float32]) {
          %0 = fn (%p0: Tensor[(1, 4, 6, 6), float32], %p1: Tensor[(4, 4, 3, 3), float32],
                   %p2: Tensor[(4, 1, 1), float32], %p3: Tensor[(4, 1, 1), float32],
                   Primitive=1) -> Tensor[(1, 4, 6, 6), float32] {
            %10 = nn.conv2d(%p0, %p1, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
            %11 = multiply(%10, %p2);
            %12 = add(%11, %p3);
            nn.relu(%12)
          };
          %1 = %0(%x, %w1, %scale, %shift);
          %2 = fn (%p0: Tensor[(1, 4, 6, 6), float32], %p1: Tensor[(4, 4, 3, 3), float32],
                   %p2: Tensor[(4), float32], %p3: Tensor[(1, 4, 6, 6), float32],
                   Primitive=1) -> Tensor[(1, 4, 6, 6), float32] {
            %20 = nn.conv2d(%p0, %p1, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
            %21 = nn.bias_add(%20, %p2);
            %22 = add(%21, %p3);
            nn.relu(%22)
          };
          %3 = %2(%1, %w2, %b2, %x);
          %4 = fn (%p0: Tensor[(1, 4, 6, 6), float32], Primitive=1) -> Tensor[(1, 4), float32] {
            mean(%p0, axis=[2, 3])
          };
          %5 = %4(%3);
          %6 = fn (%p0: Tensor[(1, 4), float32], %p1: Tensor[(3, 4), float32],
                   Primitive=1) -> Tensor[(1, 3), float32] {
            nn.dense(%p0, %p1, units=3)
          };
          %7 = %6(%5, %wd);
          %8 = fn (%p0: Tensor[(1, 3), float32], Primitive=1) -> Tensor[(1, 3), float32] {
            nn.softmax(%p0)
          };
          %8(%7)
        }""",
    )


def test_spec_and_interpreter_evaluate_primitive_calls() -> None:
    mod = relay.parse(HEADER + RESNET_BLOCK)
    out = FuseOps()(mod)
    rng = np.random.default_rng(0)
    args = []
    for p in mod["main"].params:
        assert isinstance(p.type_annotation, TensorType)
        shape = tuple(int(d) for d in p.type_annotation.shape)  # type: ignore[arg-type]
        args.append(TensorValue(rng.standard_normal(shape).astype("float32")))
    want = relay.evaluate(mod, *args)
    for engine in ("interpreter", "spec"):
        got = relay.evaluate(out, *args, engine=engine)
        assert compare_values(want, got, reduction_length=REDUCTION_LENGTH) is None, engine


# ---------------------------------------------------------------------------------------------
# The patterns


def test_elementwise_diamond_fuses_into_its_post_dominator() -> None:
    assert_fuses(
        """def @main(%x: Tensor[(2, 3), float32]) {
          %0 = exp(%x);
          %1 = negative(%0);
          %2 = abs(%0);
          add(%1, %2)
        }""",
        """def @main(%x: Tensor[(2, 3), float32]) {
          %0 = fn (%p0: Tensor[(2, 3), float32], Primitive=1) -> Tensor[(2, 3), float32] {
            %1 = exp(%p0);
            %2 = negative(%1);
            %3 = abs(%1);
            add(%2, %3)
          };
          %0(%x)
        }""",
    )


def test_reduction_takes_elementwise_producers_but_not_injective_ones_nor_consumers() -> None:
    # exp fuses into the sum; transpose (injective) does not (TVM requires every node up to
    # and including the post-dominator to be injective); the sum's consumer stays apart.
    assert_fuses(
        """def @main(%x: Tensor[(2, 3), float32]) {
          %0 = transpose(%x, axes=[1, 0]);
          %1 = exp(%0);
          %2 = sum(%1, axis=[1]);
          %3 = transpose(%x, axes=[1, 0]);
          %4 = sum(%3, axis=[0]);
          %5 = sqrt(%2);
          (%5, %4)
        }""",
        """def @main(%x: Tensor[(2, 3), float32]) {
          %0 = fn (%p0: Tensor[(2, 3), float32], Primitive=1) -> Tensor[(3, 2), float32] {
            transpose(%p0, axes=[1, 0])
          };
          %1 = %0(%x);
          %2 = fn (%p0: Tensor[(3, 2), float32], Primitive=1) -> Tensor[(3), float32] {
            %3 = exp(%p0);
            sum(%3, axis=[1])
          };
          %4 = %2(%1);
          %5 = fn (%p0: Tensor[(3), float32], Primitive=1) -> Tensor[(3), float32] {
            sqrt(%p0)
          };
          %6 = %5(%4);
          %7 = fn (%p0: Tensor[(2, 3), float32], Primitive=1) -> Tensor[(3, 2), float32] {
            transpose(%p0, axes=[1, 0])
          };
          %8 = %7(%x);
          %9 = fn (%p0: Tensor[(3, 2), float32], Primitive=1) -> Tensor[(2), float32] {
            sum(%p0, axis=[0])
          };
          %10 = %9(%8);
          (%6, %10)
        }""",
    )


def test_injective_chain_and_tuple_fields_fuse_into_concatenate() -> None:
    # Phase 1 fuses the tuple into the concatenate and the concatenate into the reshape;
    # phase 2 brings the tuple's fields in. The scalar constant is fused, not a parameter.
    assert_fuses(
        """def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(2, 3), float32]) {
          %0 = add(%x, 1f);
          %1 = nn.relu(%y);
          %2 = (%0, %1);
          %3 = concatenate(%2, axis=1);
          reshape(%3, newshape=[12])
        }""",
        """def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(2, 3), float32]) {
          %0 = fn (%p0: Tensor[(2, 3), float32], %p1: Tensor[(2, 3), float32],
                   Primitive=1) -> Tensor[(12), float32] {
            %1 = add(%p0, 1f);
            %2 = nn.relu(%p1);
            %3 = (%1, %2);
            %4 = concatenate(%3, axis=1);
            reshape(%4, newshape=[12])
          };
          %0(%x, %y)
        }""",
    )


def test_split_fields_and_projection_roots() -> None:
    # The projection feeding multiply is fused with it (its tuple is a parameter); the other
    # projection, whose tuple is in another group, stays a plain projection.
    assert_fuses(
        """def @main(%x: Tensor[(2, 4), float32]) {
          %0 = split(%x, indices_or_sections=2, axis=1);
          %1 = %0.0;
          %2 = multiply(%1, 2f);
          (%2, %0.1)
        }""",
        """def @main(%x: Tensor[(2, 4), float32]) {
          %0 = fn (%p0: Tensor[(2, 4), float32], Primitive=1)
              -> (Tensor[(2, 2), float32], Tensor[(2, 2), float32]) {
            split(%p0, indices_or_sections=2, axis=1)
          };
          %1 = %0(%x);
          %2 = fn (%p0: (Tensor[(2, 2), float32], Tensor[(2, 2), float32]),
                   Primitive=1) -> Tensor[(2, 2), float32] {
            %3 = %p0.0;
            multiply(%3, 2f)
          };
          %4 = %2(%1);
          (%4, %1.1)
        }""",
    )


def test_opaque_ops_and_reshape_only_groups() -> None:
    # argsort is opaque: alone, and its input is not fused into it; a group of reshapes is
    # marked relay.reshape_only.
    assert_fuses(
        """def @main(%x: Tensor[(6), float32]) {
          %0 = negative(%x);
          %1 = argsort(%0, dtype="int32");
          %2 = reshape(%1, newshape=[2, 3]);
          expand_dims(%2, axis=0)
        }""",
        """def @main(%x: Tensor[(6), float32]) {
          %0 = fn (%p0: Tensor[(6), float32], Primitive=1) -> Tensor[(6), float32] {
            negative(%p0)
          };
          %1 = %0(%x);
          %2 = fn (%p0: Tensor[(6), float32], Primitive=1) -> Tensor[(6), int32] {
            argsort(%p0, dtype="int32")
          };
          %3 = %2(%1);
          %4 = fn (%p0: Tensor[(6), int32], Primitive=1,
                   relay.reshape_only=1) -> Tensor[(1, 2, 3), int32] {
            %5 = reshape(%p0, newshape=[2, 3]);
            expand_dims(%5, axis=0)
          };
          %4(%3)
        }""",
    )


def test_out_elemwise_fusable_does_not_fuse_through_broadcast_edge() -> None:
    # dense's result is broadcast to a bigger shape: the edge is not elementwise.
    assert_fuses(
        """def @main(%x: Tensor[(1, 8), float32], %w: Tensor[(4, 8), float32],
                     %y: Tensor[(3, 4), float32]) {
          %0 = nn.dense(%x, %w, units=4);
          add(%0, %y)
        }""",
        """def @main(%x: Tensor[(1, 8), float32], %w: Tensor[(4, 8), float32],
                     %y: Tensor[(3, 4), float32]) {
          %0 = fn (%p0: Tensor[(1, 8), float32], %p1: Tensor[(4, 8), float32],
                   Primitive=1) -> Tensor[(1, 4), float32] {
            nn.dense(%p0, %p1, units=4)
          };
          %1 = %0(%x, %w);
          %2 = fn (%p0: Tensor[(1, 4), float32], %p1: Tensor[(3, 4), float32],
                   Primitive=1) -> Tensor[(3, 4), float32] {
            add(%p0, %p1)
          };
          %2(%1, %y)
        }""",
    )


# ---------------------------------------------------------------------------------------------
# Boundaries


def test_stop_fusion_splits_and_disappears() -> None:
    assert_fuses(
        """def @main(%x: Tensor[(2, 3), float32]) {
          %0 = exp(%x);
          %1 = annotation.stop_fusion(%0);
          nn.relu(%1)
        }""",
        """def @main(%x: Tensor[(2, 3), float32]) {
          %0 = fn (%p0: Tensor[(2, 3), float32], Primitive=1) -> Tensor[(2, 3), float32] {
            exp(%p0)
          };
          %1 = %0(%x);
          %2 = fn (%p0: Tensor[(2, 3), float32], Primitive=1) -> Tensor[(2, 3), float32] {
            nn.relu(%p0)
          };
          %2(%1)
        }""",
    )


def test_effects_lets_and_closure_calls_are_boundaries() -> None:
    # ref_read, the let-bound value and the closure call are inputs of the groups; the
    # pure let is a boundary too (TVM does not fuse through let).
    assert_fuses(
        """def @main(%x: Tensor[(2), float32], %r: ref(Tensor[(2), float32]),
                     %f: fn (Tensor[(2), float32]) -> Tensor[(2), float32]) {
          let %a = negative(%x);
          %0 = add(%a, ref_read(%r));
          %1 = %f(%0);
          %2 = exp(%1);
          %3 = ref_write(%r, %2);
          (%3, nn.relu(%2))
        }""",
        """def @main(%x: Tensor[(2), float32], %r: ref(Tensor[(2), float32]),
                     %f: fn (Tensor[(2), float32]) -> Tensor[(2), float32]) {
          %0 = fn (%p0: Tensor[(2), float32], Primitive=1) -> Tensor[(2), float32] {
            negative(%p0)
          };
          let %a = %0(%x);
          %1 = ref_read(%r);
          %2 = fn (%p0: Tensor[(2), float32], %p1: Tensor[(2), float32],
                   Primitive=1) -> Tensor[(2), float32] {
            add(%p0, %p1)
          };
          %3 = %2(%a, %1);
          %4 = %f(%3);
          %5 = fn (%p0: Tensor[(2), float32], Primitive=1) -> Tensor[(2), float32] {
            exp(%p0)
          };
          %6 = %5(%4);
          %7 = ref_write(%r, %6);
          %8 = fn (%p0: Tensor[(2), float32], Primitive=1) -> Tensor[(2), float32] {
            nn.relu(%p0)
          };
          (%7, %8(%6))
        }""",
    )


def test_no_fusion_across_if_branches() -> None:
    # %0 is used only in the true branch, but it is evaluated in the function body (it is
    # shared with the condition's computation): it is not fused into the branch. Inside
    # the branch, negative and exp fuse.
    assert_fuses(
        """def @main(%x: Tensor[(2), float32]) {
          %0 = abs(%x);
          %1 = sum(%0);
          %2 = greater(%1, 0f);
          if (%2) { exp(negative(%0)) } else { %x }
        }""",
        """def @main(%x: Tensor[(2), float32]) {
          %0 = fn (%p0: Tensor[(2), float32], Primitive=1) -> Tensor[(2), float32] {
            abs(%p0)
          };
          %1 = %0(%x);
          %2 = fn (%p0: Tensor[(2), float32], Primitive=1) -> float32 {
            sum(%p0)
          };
          %3 = fn (%p0: float32, Primitive=1) -> bool { greater(%p0, 0f) };
          %4 = %3(%2(%1));
          if (%4) {
            %5 = fn (%p0: Tensor[(2), float32], Primitive=1) -> Tensor[(2), float32] {
              %6 = negative(%p0);
              exp(%6)
            };
            %5(%1)
          } else {
            %x
          }
        }""",
    )


def test_closure_bodies_fuse_on_their_own() -> None:
    assert_fuses(
        """def @main(%x: Tensor[(2), float32]) {
          %0 = negative(%x);
          let %g = fn (%y: Tensor[(2), float32]) { exp(add(%y, %0)) };
          %g(%0)
        }""",
        """def @main(%x: Tensor[(2), float32]) {
          %0 = fn (%p0: Tensor[(2), float32], Primitive=1) -> Tensor[(2), float32] {
            negative(%p0)
          };
          %1 = %0(%x);
          let %g = fn (%y: Tensor[(2), float32]) {
            %2 = fn (%p0: Tensor[(2), float32], %p1: Tensor[(2), float32],
                     Primitive=1) -> Tensor[(2), float32] {
              %3 = add(%p0, %p1);
              exp(%3)
            };
            %2(%y, %1)
          };
          %g(%1)
        }""",
    )


def test_max_depth_limits_group_size() -> None:
    # With max_depth=3, TVM's count stops the third relu from joining: {r1, r2, r3}, {r4, r5}.
    assert_fuses(
        """def @main(%x: Tensor[(2), float32]) {
          nn.relu(nn.relu(nn.relu(nn.relu(nn.relu(%x)))))
        }""",
        """def @main(%x: Tensor[(2), float32]) {
          %0 = fn (%p0: Tensor[(2), float32], Primitive=1) -> Tensor[(2), float32] {
            nn.relu(nn.relu(nn.relu(%p0)))
          };
          %1 = fn (%p0: Tensor[(2), float32], Primitive=1) -> Tensor[(2), float32] {
            nn.relu(nn.relu(%p0))
          };
          %1(%0(%x))
        }""",
        FuseOps(max_depth=3),
    )


def test_opt_level_zero_gives_each_call_its_own_function() -> None:
    src = """def @main(%x: Tensor[(2), float32]) { nn.relu(add(%x, 1f)) }"""
    expected = """def @main(%x: Tensor[(2), float32]) {
      %0 = fn (%p0: Tensor[(2), float32], %p1: float32, Primitive=1) -> Tensor[(2), float32] {
        add(%p0, %p1)
      };
      %1 = fn (%p0: Tensor[(2), float32], Primitive=1) -> Tensor[(2), float32] {
        nn.relu(%p0)
      };
      %1(%0(%x, 1f))
    }"""
    assert_fuses(src, expected, FuseOps(fuse_opt_level=0))
    with PassContext(opt_level=0):
        out = FuseOps()(relay.parse(HEADER + src))
    assert alpha_equal(out, relay.parse(HEADER + expected))


def test_on_device_stays_a_plain_call_and_fusion_is_idempotent() -> None:
    out = fused(
        """def @main(%x: Tensor[(2), float32]) {
          %0 = on_device(%x, device_type=1);
          exp(%0)
        }"""
    )
    body = out["main"].body
    assert isinstance(body, Call) and isinstance(body.op, Function) and is_primitive(body.op)
    assert isinstance(body.args[0], Call) and body.args[0].op == body.args[0].op
    assert isinstance(body.args[0].op, Op) and body.args[0].op.name == "on_device"
    again = FuseOps()(out)
    assert alpha_equal(again, out)


# ---------------------------------------------------------------------------------------------
# DefuseOps


def test_defuse_inlines_primitive_calls() -> None:
    mod = relay.parse(HEADER + RESNET_BLOCK)
    back = DefuseOps()(FuseOps()(mod))
    assert alpha_equal(back, mod), relay.astext(back)


def test_defuse_keeps_effect_order_with_lets_and_strips_uncalled_primitives() -> None:
    # The body reads its parameters in the other order than the arguments are evaluated:
    # the impure arguments are bound by lets, in argument order.
    t = "Tensor[(2), float32]"
    mod = relay.parse(
        HEADER
        + f"""def @main(%r: ref({t}), %s: ref({t})) {{
          %0 = fn (%a: {t}, %b: {t}, Primitive=1) {{ subtract(%b, %a) }};
          %1 = %0(ref_read(%r), ref_read(%s));
          let %g = fn (%c: {t}, Primitive=1) {{ negative(%c) }};
          %g(%1)
        }}"""
    )
    out = DefuseOps()(mod)
    want = relay.parse(
        HEADER
        + f"""def @main(%r: ref({t}), %s: ref({t})) {{
          let %g = fn (%c: {t}) {{ negative(%c) }};
          %g((let %a: {t} = ref_read(%r); let %b: {t} = ref_read(%s); subtract(%b, %a)))
        }}"""
    )
    assert alpha_equal(out, want), relay.astext(out)
    assert check_pass(DefuseOps(), mod, None) is None


def test_defuse_substitutes_impure_arguments_used_in_order() -> None:
    mod = relay.parse(
        HEADER
        + """def @main(%r: ref(Tensor[(2), float32]), %x: Tensor[(2), float32]) {
          %0 = fn (%a: Tensor[(2), float32], %b: Tensor[(2), float32], Primitive=1) {
            add(%a, %b)
          };
          %0(ref_read(%r), %x)
        }"""
    )
    want = relay.parse(
        HEADER
        + """def @main(%r: ref(Tensor[(2), float32]), %x: Tensor[(2), float32]) {
          add(ref_read(%r), %x)
        }"""
    )
    assert alpha_equal(DefuseOps()(mod), want)


# ---------------------------------------------------------------------------------------------
# Properties


@settings(deadline=None, max_examples=40)
@given(cases(focus=sorted(FuseOps.focus_ops)))
def test_fuse_ops_preserves_meaning(case: Case) -> None:
    verdict = check_pass(FuseOps(), case.mod, case.args, reduction_length=REDUCTION_LENGTH)
    assert verdict is None, verdict.report()


@settings(deadline=None, max_examples=20)
@given(cases(focus=sorted(FuseOps.focus_ops)))
def test_defuse_ops_preserves_meaning_of_fused_programs(case: Case) -> None:
    verdict = check_pass(
        DefuseOps(), FuseOps()(case.mod), case.args, reduction_length=REDUCTION_LENGTH
    )
    assert verdict is None, verdict.report()


def _calls_outside_primitives(root: Expr) -> set[str]:
    """The operators called outside primitive functions."""
    out: set[str] = set()
    stack = [root]
    while stack:
        e = stack.pop()
        if isinstance(e, Function) and is_primitive(e):
            continue
        if isinstance(e, Call) and isinstance(e.op, Op):
            out.add(e.op.name)
        stack.extend(children(e))
    return out


def _without_stop_fusion(mod: IRModule) -> IRModule:
    def visit(e: Expr) -> Expr | None:
        if isinstance(e, Call) and isinstance(e.op, Op) and e.op.name == "annotation.stop_fusion":
            return e.args[0]
        return None

    return rewrite_module(mod, visit)


@settings(deadline=None, max_examples=40)
@given(st.data())
def test_defuse_of_fuse_is_alpha_equal_on_dataflow_programs(data: st.DataObject) -> None:
    program = data.draw(dataflow_programs(max_nodes=10, ops=sorted(FuseOps.focus_ops)))
    mod = program.mod
    fused_mod = FuseOps()(mod)
    assert _calls_outside_primitives(fused_mod["main"]) <= {"on_device"}
    back = DefuseOps()(fused_mod)
    assert not any(
        isinstance(e, Function) and is_primitive(e) for e in post_order(back["main"].body)
    )
    assert alpha_equal(back, _without_stop_fusion(mod)), relay.astext(back)
    args = data.draw(program.arguments())
    want, got = run_main(mod, args, 200_000), run_main(back, args, 200_000)
    if want.error is None:
        assert got.value is not None and want.value is not None
        assert compare_values(want.value, got.value) is None


def test_program_without_calls_is_unchanged() -> None:
    mod = relay.parse(HEADER + "def @main(%x: Tensor[(2), float32]) { (%x, %x) }")
    assert alpha_equal(FuseOps()(mod), mod)
