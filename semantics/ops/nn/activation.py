"""Activations: nn.relu, nn.leaky_relu, nn.prelu and the softmax family.

Elementwise operators: unary math, binary broadcasting arithmetic and comparison, and fills.

::

    unary      negative abs floor ceil round nn.relu zeros_like ones_like   (data)
                   any dtype                                  Identity        elemwise
               exp log sqrt rsqrt tanh sigmoid                float  Identity elemwise
               logical_not                                    bool   Identity elemwise
    binary     add subtract multiply divide floor_divide mod floor_mod maximum minimum
                   any dtype, lhs and rhs alike   (lhs, rhs)  Broadcast       broadcast
               power                                          float  Broadcast
               logical_and logical_or                         bool   Broadcast
               equal not_equal less less_equal greater greater_equal
                   any dtype, result bool                     BroadcastComp   broadcast
    clip(data, a_min=, a_max=)                 ClipAttrs      Identity        elemwise
    cast(data, dtype=)                         CastAttrs      Cast            elemwise
    nn.leaky_relu(data, alpha=0.25)            LeakyReluAttrs Identity        elemwise
    where(condition, x, y)                                    Where           broadcast
    full_like(data, fill_value)                               FullLike        elemwise

Argument names, attribute fields, relation names and fusion patterns follow TVM 0.18
(``RELAY_REGISTER_UNARY_OP`` and ``RELAY_REGISTER_BINARY_OP`` name their arguments ``data`` and
``lhs, rhs``).

Typing. ``Identity``: the result has the argument's type. ``Broadcast``: ``lhs`` and ``rhs`` have
one dtype, the result has that dtype and the broadcast shape; ``BroadcastComp`` is the same with
a bool result. Broadcasting is TVM's ``ConcreteBroadcast``: shapes are aligned from the right
(the shorter one padded with 1s) and, dimension by dimension, a 1 takes the other size, a ``?``
takes the other size, two equal sizes (provably equal, for symbolic sizes) stay; anything else,
including two different symbols or a symbol against a constant other than 1, is an error.
``Where`` broadcasts ``x`` with ``y`` (same dtype), then ``condition`` (any dtype) with that.
``Cast`` gives ``dtype`` with the data's shape. ``FullLike`` gives the data's type and needs a
rank-0 ``fill_value`` of any dtype.

Meaning: what TVM's TOPI compute lowered through its LLVM code generator (default target, no
``-fast-math`` flags) computed.

- Integers: ``divide`` and ``mod`` truncate (``sdiv``/``srem``; the remainder has the sign of
  the dividend); ``floor_divide`` and ``floor_mod`` floor (the remainder has the sign of the
  divisor). ``int8``, ``int16``, ``uint8``, ``uint16`` and ``bool`` (LLVM's ``i1``) arithmetic
  wraps: ``add`` of two ``True`` is ``False``. ``abs`` of an unsigned or bool value, and
  ``floor``/``ceil``/``round`` of any integer, is the value itself (``tir::abs``,
  ``tir::floor``... return integers unchanged).
- Floats are computed in their own dtype, one rounding per TIR operation; for ``float16`` numpy
  computes each operation in float32 and rounds, as LLVM's promotion of ``half`` does.
  ``floor_divide`` is ``floor(a / b)`` and ``floor_mod`` is ``a - floor(a / b) * b`` (TOPI's
  formulas, not numpy's); ``mod`` is C's ``fmod`` (``frem``); ``round`` rounds halves away from
  zero (``llvm.round``); ``rsqrt`` is ``1 / sqrt(x)``; ``sigmoid`` is ``1 / (1 + exp(-x))``.
  ``tanh`` is the mathematical function (TVM's LLVM legalisation ``(1 - e^-2x) / (1 + e^-2x)``
  loses relative accuracy near 0: the comparison tolerance, not this reference, absorbs that).
- NaN follows TVM's ``select``-based definitions and LLVM's *ordered* float comparisons:
  ``maximum(a, b)`` is ``a > b ? a : b`` and ``minimum(a, b)`` is ``a < b ? a : b`` (so
  ``maximum(NaN, 1) = 1`` but ``maximum(1, NaN) = NaN``); ``nn.relu`` is ``maximum(x, 0)``
  (``relu(NaN) = 0``); ``clip`` is ``maximum(minimum(x, a_max), a_min)``, where TVM drops the
  ``minimum`` when ``a_max`` is +inf and the ``maximum`` when ``a_min`` is -inf;
  ``nn.leaky_relu`` is ``x > 0 ? x : x * alpha``; ``not_equal`` is ``fcmp one``, false when
  either side is NaN, like every other comparison; a float is true (a ``where`` condition, a
  ``cast`` to bool) when it is ordered and non-zero, so NaN is false.
- ``clip``'s bounds and ``nn.leaky_relu``'s ``alpha`` are converted to the data dtype as TVM's
  ``make_const`` did: truncated toward zero for integers, rounded for floats.
- ``cast`` is LLVM's conversion: integer to integer truncates or sign/zero-extends (by the
  source's signedness); integer to float rounds to nearest; float to integer truncates toward
  zero; anything to bool is ``!= 0`` (ordered for floats). ``full_like`` casts its fill value
  that way.

Undefined behaviour (``UndefinedBehavior``), each where TVM left the case undefined:

- integer ``divide``, ``floor_divide``, ``mod``, ``floor_mod`` by zero (a ``False`` divisor for
  bool): LLVM ``sdiv``/``udiv``/``srem``/``urem`` by zero is UB (``codegen_llvm.cc``
  ``DivNode``/``ModNode``; ``floordiv``/``floormod`` lower to them);
- the smallest signed integer divided by -1, in the same four ops, at every signed width: the
  quotient overflows and LLVM makes ``sdiv``/``srem`` overflow UB;
- ``int32``/``int64`` overflow in ``add``, ``subtract``, ``multiply``, ``negative``, ``abs`` and
  ``nn.leaky_relu``'s ``x * alpha``, and ``uint32``/``uint64`` wrap-around in ``add``,
  ``subtract``, ``multiply`` and ``negative`` (``-x`` is ``0 - x``): TVM's LLVM code generator
  emits ``nsw``/``nuw`` arithmetic for integers of 32 bits and more
  (``DEFINE_CODEGEN_BINARY_OP`` in ``src/target/llvm/codegen_llvm.cc``), whose overflow is
  poison;
- ``cast`` (and ``full_like``'s fill value) from a float to an integer type of NaN, of an
  infinity, or of a value whose truncation does not fit the target: ``fptosi``/``fptoui``
  return poison;
- a ``clip`` bound or ``nn.leaky_relu`` ``alpha`` that the data dtype cannot represent (NaN or
  out of range for an integer dtype, a negative value for an unsigned one, a finite value beyond
  a float dtype's range): TVM's ``make_const`` refused it (``IntImm``/``FloatImm`` range checks)
  or converted it with C++ undefined behaviour, so TVM gave such a program no meaning.

Where TVM's own constant folder disagreed with its generated code (``round`` of a constant used
``std::nearbyint``; folded float comparisons used C++'s unordered ``!=``), this follows the
generated code.

Deliberate deviations from TVM's relations, both rejecting programs TVM typed but could not
compile: ``exp log sqrt rsqrt tanh sigmoid power`` require a float dtype (TVM's relations
accepted integers, then lowering failed: ``tir::pow`` checks "power only applies to float", the
other intrinsics have no integer lowering), and ``logical_and logical_or logical_not`` require
bool (TIR's ``&&``, ``||``, ``!`` check for boolean operands).

Neural-network operators: softmax, dense, convolution, pooling, normalisation, padding.

::

    nn.softmax | nn.log_softmax(data, axis=-1)                  SoftmaxAttrs       out-fusable
    nn.dense(data, weight, units=, out_dtype="")                DenseAttrs         out-fusable
    nn.bias_add(data, bias, axis=1)                             BiasAddAttrs       broadcast
    nn.batch_flatten(data)                                                         injective
    nn.conv2d(data, weight, strides=(1, 1), ...)                Conv2DAttrs        out-fusable
    nn.max_pool2d(data, pool_size=, ...)                        MaxPool2DAttrs     out-fusable
    nn.avg_pool2d(data, pool_size=, ...)                        AvgPool2DAttrs     out-fusable
    nn.global_avg_pool2d(data, layout="NCHW", out_layout="")    GlobalPool2DAttrs  out-fusable
    nn.batch_norm(data, gamma, beta, moving_mean, moving_var, axis=1, ...)
                                                                BatchNormAttrs     out-fusable
    nn.dropout(data, rate=0.5)                                  DropoutAttrs       opaque
    nn.pad(data, pad_val, pad_width=, pad_mode="constant")      PadAttrs           injective

``name=`` marks a required attribute; out-fusable is out_elemwise_fusable. ``nn.dense``'s
``units`` is nullable but has no default in TVM, so it is required and written ``units=None``
when absent. Attribute fields follow TVM 0.18's ``include/tvm/relay/attrs/nn.h``, counting
only fields declared with ``TVM_ATTR_FIELD`` (``Conv2DAttrs`` and ``DenseAttrs`` also carry
``auto_scheduler_rewritten_layout`` and ``meta_schedule_original_shape`` as plain members,
which are not attributes). Argument names and patterns follow ``src/relay/op/nn/*.cc``; TVM
names ``nn.pad``'s second argument ``pad_val``.

Types (relation names as registered in TVM 0.18)::

    Softmax          nn.softmax, nn.log_softmax: the input type; -ndim <= axis < ndim
    Dense            (d1.., k), (u, k) -> (d1.., u) in out_dtype or data's dtype; with units=u
                     the weight must be exactly (u, k); weight's dtype is not checked
    BiasAdd          (d.., c @axis, ..), (c,) same dtype -> the data type
    BatchFlatten     (d0, d1, .., dk) -> (d0, d1*..*dk); ? from the first ? on; rank >= 1
    Conv2D           data in a permutation of NCHW, weight of OIHW, output of NCHW (out_layout
                     "" = data_layout); out extent floor((x + pad - ((k-1)*dil+1)) / stride) + 1
                     (>= 0), ? stays ?; channels/kernel_size, when set, must agree with the weight
                     (both set: the weight must be (channels, C/groups, kh, kw), or
                     (C, channels/C, kh, kw) for a depthwise call, groups == C == weight's O)
    MaxPool2D        H, W of `layout` become floor((x + pad - ((k-1)*dil+1) [+ stride-1 when
    AvgPool2D        ceil_mode]) / stride) + 1; other axes and dtype kept; out_layout ignored
    GlobalAvgPool2D  H, W of `layout` become 1
    BatchNorm        data, then four (C,) vectors of data's dtype, C = data.shape[axis],
                     -1 <= axis < ndim -> (data, (C,), (C,))
    Dropout          t -> (t, t)
    Pad              one (before, after) pair per axis; x -> x + before + after (? stays ?);
                     pad_val is any tensor (TVM's relation leaves it unconstrained)

Padding lists of conv2d and the pools hold 1, 2 or 4 integers: ``p`` pads every side,
``(t, l)`` pads top and bottom by ``t`` and left and right by ``l``, ``(t, l, b, r)`` is
explicit (``GetPaddingHeightWidth`` in ``src/relay/op/op_common.h``).

Meaning (what TVM 0.18's topi computes)::

    softmax        e = exp(x - max(x)); e / sum(e)          (topi/nn/softmax.py, any axis)
    log_softmax    x - max(x) - log(sum(exp(x - max(x))))   (the relay strategy passes axis)
    dense          sum_k cast(x[.., k]) * cast(w[j, k]) in the output dtype
    conv2d         cross-correlation on the zero-padded input, per group, both operands cast to
                   the output dtype first; a depthwise weight (C, m, kh, kw) is the grouped
                   weight (C*m, 1, kh, kw) (topi depthwise_conv2d_nchw)
    max_pool2d     max over the dilated window of the input padded with the dtype's lowest
                   finite value (``tvm::min_value``, not -inf); the reduction starts from that
                   value too, so an all -inf window gives the lowest finite value; ceil_mode
                   pads stride-1 more at the end (``pool_impl_nd`` in topi/nn/pooling.h) and
                   keeps a last window starting in that padding (onnxruntime drops it)
    avg_pool2d     window sum of the zero-padded input divided by: count_include_pad, the
                   number of window positions up to the end of the user padding (the ceil_mode
                   extension excluded); otherwise max(1, number of positions inside the input).
                   Both counts use TVM's formulas, truncating division included; a ceil_mode
                   window wholly in the extension counts 0 with count_include_pad (float: NaN)
    global_avg     mean over H and W: sum / (H*W)
    batch_norm     inference: (x - mean) / sqrt(var + eps) [* gamma] [+ beta] along axis, and
                   the moving mean and variance passed through (topi/nn/batch_norm.py,
                   training=False returns moving_mean * 1, moving_var * 1). SimplifyInference
                   rewrites field 0 as x * s + (-mean * s) [+ beta] with s = 1/sqrt(var + eps)
                   [* gamma]: equal in exact arithmetic, not bit for bit
    dropout        (data, ones): TVM has no compute for nn.dropout; SimplifyInference replaces
                   field 0 by the data, and the mask (1 where kept, by DropoutRel's comment)
                   is all ones in inference
    pad            topi::pad: constant fills pad_val cast to data's dtype (its element at index
                   0..0); edge repeats the border; reflect mirrors without repeating it
                   (index before - i, and 2n - i + before - 2 after the end); a negative width
                   crops

Integers follow TVM's LLVM code generator (``src/target/llvm/codegen_llvm.cc``,
``DEFINE_CODEGEN_BINARY_OP``): add, sub and mul are ``nsw`` for int32/int64 and ``nuw`` for
uint32/uint64, so overflow there is undefined; narrower integers wrap. Integer division
truncates toward zero (``CreateSDiv``/``CreateUDiv``). Casts follow ``CreateCast``: float to
int is ``fptosi``/``fptoui`` (poison when NaN or out of range), to bool is ``x != 0`` (a NaN
gives false), int to int truncates or extends.

Float16 is computed in float32 and rounded once at the end (conv2d, dense, softmax,
log_softmax, avg_pool2d, global_avg_pool2d, batch_norm); TVM computed and accumulated in
float16, so results may differ by float16 rounding.

Undefined behaviour (``UndefinedBehavior``; where TVM leaves it undefined)::

    conv2d, dense       32/64-bit integer overflow of a product or of the total (nsw/nuw in
                        codegen_llvm.cc; partial sums are not checked: the total is exact);
                        an operand cast to the output dtype from NaN or an out-of-range
                        float (fptosi/fptoui poison); a bool output dtype (topi sums in the
                        output dtype, for which TVM defines no arithmetic meaning)
    bias_add            32/64-bit integer overflow (nsw/nuw); bool data (as above)
    max_pool2d          a window holding NaN: Max is select(a > b, a, b) with an ordered
                        compare (codegen_llvm.cc), so the result depends on reduction order
    avg_pool2d          integers: 32/64-bit overflow of a window sum, a zero divisor (the
                        count_include_pad count is 0 for a window lying wholly in the
                        ceil_mode extension; division by zero); bool data
    global_avg_pool2d   integers: 32/64-bit overflow of the sum, H*W not representable in
                        the dtype (``cast(dtype, extent)`` in topi adaptive_pool_impl) or 0;
                        bool data
    softmax, log_softmax, batch_norm
                        non-float data (exp, log and sqrt are float intrinsics; TVM's relation
                        accepts other dtypes but nothing defines the result)
    pad                 edge or reflect reading outside the input (reflect width >= the
                        axis extent, either mode on an empty axis): topi::pad indexes the
                        input out of bounds; a pad_val with no elements; casting a NaN or
                        out-of-range float pad_val to an integer dtype

Deliberate departures from TVM 0.18:

- conv2d accepts only layouts that permute NCHW (data, output) and OIHW (kernel); TVM also
  took packed layouts (NCHW4c) and GOIHW. Strides and dilation must be 2 positive integers,
  kernel_size 2 integers, groups >= 1, padding non-negative, the kernel non-empty; grouped
  calls need C and (depthwise aside) the output channels divisible by groups. TVM's relation
  did not check these; topi asserted some at compile time.
- max_pool2d and avg_pool2d reject a window longer than the padded input (TVM's relation
  divided with truncation there, topi with floor, so the two disagreed), negative padding,
  non-positive pool_size, strides or dilation, and lists not of length 2. A pooling layout is
  a TVM layout string (``NCHW``, ``NHWC``, ``NCHW16c``) with one axis per data axis.
- pad rejects pad_mode other than constant, edge and reflect.
- dense batches data of any rank >= 1 over its leading axes, as DenseRel's type says (some
  topi versions asserted 2-D data).
- float16 is computed in float32 (above).

More convolutions and products: 1-D and 3-D convolution, transposed convolution, matmul,
batch_matmul and prelu.

::

    nn.conv1d(data, weight, strides=(1,), padding=(0, 0), dilation=(1,), groups=1,
              channels=None, kernel_size=None, data_layout="NCW", kernel_layout="OIW",
              out_dtype="")                                   Conv1DAttrs           out-fusable
    nn.conv3d(data, weight, strides=(1, 1, 1), padding=(0, 0, 0), ..., data_layout="NCDHW",
              kernel_layout="OIDHW", out_layout="", out_dtype="")
                                                              Conv3DAttrs           out-fusable
    nn.conv1d_transpose(data, weight, channels=None, kernel_size=None, strides=(1,),
              output_padding=(0,), padding=(0,), dilation=(1,), groups=1, data_layout="NCW",
              kernel_layout="IOW", out_layout="", out_dtype="")
                                                              Conv1DTransposeAttrs  out-fusable
    nn.conv2d_transpose(data, weight, ..., strides=(1, 1), output_padding=(0, 0),
              padding=(0, 0), dilation=(1, 1), groups=1, data_layout="NCHW",
              kernel_layout="IOHW", out_layout="", out_dtype="")
                                                              Conv2DTransposeAttrs  out-fusable
    nn.matmul(tensor_a, tensor_b, units=, out_dtype="", transpose_a=False, transpose_b=False)
                                                              MatmulAttrs           out-fusable
    nn.batch_matmul(tensor_a, tensor_b, out_dtype="", transpose_a=False, transpose_b=False)
                                                              BatchMatmulAttrs      out-fusable
    nn.prelu(data, alpha, axis=1)                             PReluAttrs            broadcast

``name=`` marks a required attribute (``units`` is nullable without a default, as in
``nn.dense``). Fields follow TVM 0.18's ``include/tvm/relay/attrs/nn.h``, counting only fields
declared with ``TVM_ATTR_FIELD``: ``Conv1DAttrs`` has an ``out_layout`` member but never
declared it, so conv1d has no ``out_layout`` attribute and its output is in ``data_layout``.
``BatchMatmulAttrs.transpose_b`` defaults to False, as the attributes class declares it;
TVM's Python builder ``relay.nn.batch_matmul`` passed ``transpose_b=True`` explicitly, and the
printer then wrote it, so a printed call says ``transpose_b=True`` (the NT form) in full.

Types (relation names as registered in TVM 0.18)::

    Conv1D, Conv3D    data in a permutation of NCW / NCDHW, weight of OIW / OIDHW (O, C/groups,
                      k..), output in data_layout (conv1d) or out_layout ("" = data_layout);
                      extent floor((x + pad - ((k-1)*dil+1)) / stride) + 1 per spatial axis,
                      ? stays ?; channels and kernel_size, when set, must match the weight;
                      C and O divisible by groups; dtype out_dtype or data's
    Conv1DTranspose   data NCW / NCHW permutations, weight IOW / IOHW (C, O/groups, k..); C must
    Conv2DTranspose   equal the weight's I; output channels O = groups * weight's O (or
                      channels when set), extent stride*(x-1) + (k-1)*dil + 1 - pad + out_pad
                      (? stays ?), which must be >= 0; 0 <= output_padding < stride
    Matmul            a (.., k) (transpose_a: (.., k, m), rank >= 2), b (k, n) (transpose_b:
                      (n, k)); result (.., n) or (.., m, n), dtype out_dtype or a's; with
                      units=u, b must be exactly (k, u) / (u, k); b's dtype is not checked
    BatchMatmul       a (B, m, k) (transpose_a: (B, k, m)), b (B', k, n) (transpose_b:
                      (B', n, k)); B and B' equal or one of them 1 (? skips the check);
                      result (batch, m, n), batch the one not 1 (? if either is ?), dtype
                      out_dtype or a's
    PRelu             alpha is (data.shape[axis],) of data's dtype, 0 <= axis < rank; result
                      data's type

Padding of the convolutions holds, per spatial axis count ``d``: 1 integer (every side), ``d``
integers (each axis padded at both ends) or ``2d`` (all the befores, then all the afters):
``GetPaddingWidth``, ``GetPaddingHeightWidth`` and ``GetPaddingDepthHeightWidth`` in
``src/relay/op/op_common.h``. output_padding holds exactly ``d`` integers.

Meaning (what TVM 0.18's topi computes)::

    conv1d, conv3d     cross-correlation of the zero-padded input with the weight, per group,
                       both operands cast to the output dtype first (as nn.conv2d)
    conv1d_transpose,  the adjoint of that correlation: out[n, g*O/G + o, y..] = sum over c in
    conv2d_transpose   group g and window offsets j of x[n, c, i..] * w[c, o, j..] where
                       y = i*stride - pad_before + j*dil; equivalently (topi) a correlation of
                       the stride-dilated input, padded (k-1)*dil - pad_before before and
                       (k-1)*dil - pad_after + output_padding after (negative crops), with
                       the kernel flipped; output positions nothing reaches are 0
    matmul             sum_k cast(a[.., i, k]) * cast(b[k, j]) in the output dtype (batches
                       over a's leading axes, as nn.dense)
    batch_matmul       the same per batch, a batch of 1 broadcast
    prelu              x > 0 ? x : x * alpha[index along axis] (topi prelu: a Select)

Integers, float16 and out_dtype follow ``ops.nn`` exactly: 32/64-bit integer overflow of a
product or of the total is undefined, narrower integers wrap, float16 is computed in float32
and rounded once, operands are converted to the output dtype as TVM's cast does.

Undefined behaviour (``UndefinedBehavior``)::

    every convolution, matmul, batch_matmul
                       32/64-bit integer overflow of a product or of the total (nsw/nuw);
                       an operand cast to the output dtype from NaN or an out-of-range float
                       (fptosi/fptoui poison); a bool output dtype (sums of bool)
    prelu              32/64-bit integer overflow of x * alpha where x <= 0 is selected

Deliberate departures from TVM 0.18:

- Layouts must permute the canonical ones (no packed layouts such as NCW4c, no GOIHW).
  Strides and dilation must hold one positive integer per spatial axis, kernel_size one
  integer per axis, padding (forward convolution) non-negative, groups >= 1; C and (forward)
  O, or (transposed) channels, divisible by groups. TVM's relations checked few of these.
- Conv1DRel and Conv3DRel have no depthwise weight form (TVM's conv2d reads (C, m, kh, kw)
  specially; its 1-D and 3-D relations do not either).
- A grouped transposed convolution without both channels and kernel_size: TVM's relation
  gave the weight's O (per group) output channels, while topi's group_conv2d_transpose
  computes groups * O of them; the relation here says groups * O, what is computed.
- Transposed convolutions accept dilation and groups for 1-D as for 2-D (TVM's strategy
  refused dilation other than 1, and groups other than 1 for 1-D); the meaning above is the
  standard one (onnxruntime's ConvTranspose agrees). output_padding must be below the
  stride (topi asserted it).
- batch_matmul checks the sizes it can compare even when another dimension is ``?`` (TVM
  skipped every check then), and broadcasts a batch of 1 against a batch of 0 to 0 (TVM's
  relation took max(B, B') = 1).
- prelu rejects a negative axis, as TVM's relation did (it indexed the shape with it).

Neural-network normalisation and loss operators.

::

    nn.layer_norm(data, gamma, beta, axis=-1, epsilon=1e-5, center=True, scale=True)
                                                      LayerNormAttrs     LayerNorm     opaque
    nn.group_norm(data, gamma, beta, num_groups=0, axis=1, epsilon=1e-5, center=True,
                  scale=True)                         GroupNormAttrs     GroupNorm     opaque
    nn.instance_norm(data, gamma, beta, axis=1, epsilon=1e-5, center=True, scale=True)
                                                      InstanceNormAttrs  InstanceNorm  opaque
    nn.l2_normalize(data, eps=, axis=)                L2NormalizeAttrs   Identity      opaque
    nn.lrn(data, size=5, axis=1, bias=2, alpha=1e-4, beta=0.75)
                                                      LRNAttrs           Identity      opaque
    nn.cross_entropy(x, y)                                               CrossEntropy  opaque
    nn.nll_loss(predictions, targets, weights, reduction="mean", ignore_index=)
                                                      NLLLossAttrs       NLLLoss       out-fusable
    nn.fast_softmax(data, axis=-1)                    SoftmaxAttrs       Softmax       out-fusable

``name=`` marks a required attribute (TVM declared ``L2NormalizeAttrs.eps``, ``.axis`` and
``NLLLossAttrs.ignore_index`` without a default). Attribute fields follow TVM 0.18's
``include/tvm/relay/attrs/nn.h``; argument names follow ``src/relay/op/nn/nn.cc`` (TVM names
``nn.cross_entropy``'s arguments ``x`` and ``y``: predictions and targets). The fusion patterns
are TVM's: ``nn.lrn`` and ``nn.cross_entropy`` registered ``opaque``; ``layer_norm``,
``group_norm``, ``instance_norm`` and ``l2_normalize`` registered none, which fusion reads as
``opaque`` (``SimplifyInference`` rewrites them into elementwise ops and reductions before
fusion).

Types::

    LayerNorm      data of rank >= 1, -ndim <= axis < ndim; gamma and beta are (C,) of data's
    InstanceNorm   dtype, C = data.shape[axis]; the result has data's type. InstanceNorm
    GroupNorm      needs rank > 2; GroupNorm needs num_groups >= 1 dividing C
    Identity       nn.l2_normalize: each axis in [-ndim, ndim), no repeats, at least one;
                   nn.lrn: rank 4, axis 1 or 3, size odd and positive; the result is data's
                   type
    CrossEntropy   x and y of rank 2, equal shapes and dtypes -> a scalar of x's dtype
    NLLLoss        predictions (N, C, d1..) of a float dtype, targets (N, d1..) of a signed
                   integer dtype, weights (C,) of predictions' dtype; predictions may also be
                   (C,) with rank-0 targets; reduction "none" -> targets' shape, "mean" or
                   "sum" -> a scalar, in predictions' dtype
    Softmax        as nn.softmax: data's type, -ndim <= axis < ndim

Meaning (TVM 0.18: ``SimplifyInference`` in ``src/relay/transforms/simplify_inference.cc`` for
the first four, TOPI for the others)::

    layer_norm     m = mean(x, axis); v = mean((x - m)^2, axis);
                   (x - m) / sqrt(v + eps) [* gamma] [+ beta], gamma and beta along axis
    instance_norm  the same with m and v over every axis but 0 and axis
    group_norm     axis of extent C split into (num_groups, C / num_groups); m and v per
                   group over the C / num_groups channels and every axis after axis
                   (axes before axis, the batch, are kept); then gamma and beta per channel
    l2_normalize   x / sqrt(max(sum(x^2, axis), eps))
    lrn            x / (bias + alpha * s / size)^beta, s the sum of squares over the window
                   of size channels centred on each channel along axis (zero beyond the
                   ends; topi/nn/local_response_norm.h)
    cross_entropy  -sum(log(x) * y) / N, N = x.shape[0] (_nn.py's compute)
    nll_loss       per target t = targets[n, d..]: l = -predictions[n, t, d..] * weights[t],
                   0 where t == ignore_index; "none" gives l, "sum" sum(l), "mean"
                   sum(l) / sum(weights[t] over targets not ignored) (topi nll_loss; NaN
                   when every target is ignored)
    fast_softmax   softmax with TVM's fast_exp for float32 (topi fast_exp_float32: the
                   input clamped to +-88.376, 2^n by exponent bits times a degree-7
                   polynomial in f = x - n ln 2, n = floor(x log2 e + 1/2), the result at
                   least x); other float dtypes use exp

The normalisations compute epsilon, bias, alpha and beta as constants of the data's dtype.
Float16 is computed in float32 and rounded once at the end, as in ``ops.nn``.

Undefined behaviour (``UndefinedBehavior``)::

    every op       non-float data (log, sqrt, exp and pow are float intrinsics; the relations
                   accept other dtypes, nothing defines the result)
    nll_loss       a target outside [0, C) that is not ignore_index: topi reads predictions
                   and weights at it, out of bounds

Deliberate departures from TVM 0.18: the relations check what TVM's relations left to a later
crash or to a silent misreading: ``group_norm``'s ``num_groups`` (TVM divided by it in
``SimplifyInference``), ``l2_normalize``'s axes (checked only by the ``sum`` it became),
``lrn``'s rank, axis and size (TOPI's ``ICHECK``\\ s), ``cross_entropy``'s dtypes (TOPI's
multiply needs one dtype), and ``nll_loss``'s target shape (TVM compared ranks only) and
``reduction`` (TVM's relation read any string but "none" as a reduction; TOPI's compute read any
string but "mean" and "sum" as "none"). ``nll_loss`` targets equal to ``ignore_index`` are
defined (they contribute 0) although TOPI's ``Select`` also evaluates the ignored branch,
reading predictions at ``ignore_index``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...syntax import TensorType, Type
from ..elementwise import (
    Accepts,
    Array,
    UnaryKernel,
    _attr_constant,
    _exact,
    _fit,
    _identity_relation,
    _is_float,
    _maximum,
    _unary,
)
from ..registry import (
    AttrKind,
    Attrs,
    OpDef,
    OpPattern,
    Reference,
    Relation,
    RelationError,
    ShapeFunc,
    attr_field,
    register,
    tensor_reference,
)
from ..shapes import (
    dims_equal,
    tensor_arg,
)
from .common import (
    _attrs,
    _axis,
    _compute_dtype,
    _int_result,
    _Num,
    _require_float,
    _shape_str,
)


@dataclass(frozen=True, slots=True)
class LeakyReluAttrs(Attrs):
    """Attributes of ``nn.leaky_relu``: the slope on the negative half axis."""

    type_key: ClassVar[str] = "relay.attrs.LeakyReluAttrs"
    alpha: float = attr_field(
        AttrKind.FLOAT, 0.25, doc="Slope coefficient for the negative half axis."
    )


def _leaky_relu(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
    (x,) = args
    assert isinstance(attrs, LeakyReluAttrs)
    dtype = x.dtype.name
    alpha = _attr_constant(attrs.alpha, dtype, "nn.leaky_relu alpha")
    positive = x > 0
    if _is_float(dtype):
        scaled = np.asarray(x * alpha)
    else:
        # Only the selected products count: select's other arm may overflow harmlessly.
        kept = np.where(positive, np.zeros_like(x), x)
        scaled = _fit(_exact(kept) * _exact(alpha), dtype, "nn.leaky_relu")
    return np.asarray(np.where(positive, x, scaled)).astype(dtype, copy=False)


_UNARY: tuple[tuple[str, Accepts, UnaryKernel, str, str], ...] = (
    (
        "nn.relu",
        "any",
        lambda x: _maximum(x, np.zeros_like(x)),
        "Rectified linear unit.",
        "onnxruntime:Relu",
    ),
)
"""Unary operators without attributes (relation ``Identity``): name, dtypes, kernel, doc, check."""


def _op(
    name: str,
    doc: str,
    *,
    relation: Relation,
    reference: Reference,
    check: str,
    relation_name: str = "Softmax",
    inputs: tuple[str, ...] = ("data",),
    attrs_type: type[Attrs] | None = None,
    pattern: OpPattern = OpPattern.OUT_ELEMWISE_FUSABLE,
    shape_func: ShapeFunc | None = None,
) -> None:
    """Register one operator of this module, with its independent ``check``; unless told
    otherwise: no attributes, inputs data, pattern out_elemwise_fusable, relation "Softmax"."""
    register(
        OpDef(
            name,
            inputs,
            attrs_type,
            pattern,
            doc,
            relation=relation,
            reference=reference,
            relation_name=relation_name,
            check=check,
            shape_func=shape_func,
        )
    )


for _name, _accepts, _kernel, _doc, _check in _UNARY:
    _op(
        _name,
        _doc,
        relation=_identity_relation(_accepts),
        reference=tensor_reference(_unary(_kernel)),
        check=_check,
        relation_name="Identity",
        pattern=OpPattern.ELEMWISE,
    )


_op(
    "nn.leaky_relu",
    "Leaky rectified linear unit, x if x > 0 else alpha * x.",
    relation=_identity_relation("any"),
    reference=tensor_reference(_leaky_relu),
    check="onnxruntime:LeakyRelu",
    relation_name="Identity",
    attrs_type=LeakyReluAttrs,
    pattern=OpPattern.ELEMWISE,
)


@dataclass(frozen=True, slots=True)
class SoftmaxAttrs(Attrs):
    """Attributes of ``nn.softmax`` and ``nn.log_softmax``: the normalised axis."""

    type_key: ClassVar[str] = "relay.attrs.SoftmaxAttrs"
    axis: int = attr_field(AttrKind.INT, -1, doc="The axis to sum over.")


def _softmax_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, SoftmaxAttrs)
    data = tensor_arg(arg_types[0], "data")
    _axis(a.axis, len(data.shape))
    return TensorType(data.shape, data.dtype)


def _softmax_shifted(args: tuple[_Num, ...], attrs: Attrs | None, op: str) -> tuple[_Num, int]:
    """``x - max(x)`` along the axis, in the compute dtype, and the axis."""
    a = _attrs(attrs, SoftmaxAttrs)
    data = args[0]
    _require_float(data, op)
    axis = a.axis % data.ndim
    x = data.astype(_compute_dtype(data.dtype))
    return (x - np.max(x, axis=axis, keepdims=True) if x.size else x), axis


def _softmax_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    with np.errstate(all="ignore"):
        shifted, axis = _softmax_shifted(args, attrs, "nn.softmax")
        e = np.exp(shifted)
        return np.asarray(e / np.sum(e, axis=axis, keepdims=True)).astype(args[0].dtype)


def _log_softmax_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    with np.errstate(all="ignore"):
        shifted, axis = _softmax_shifted(args, attrs, "nn.log_softmax")
        total = np.sum(np.exp(shifted), axis=axis, keepdims=True)
        return np.asarray(shifted - np.log(total)).astype(args[0].dtype)


_op(
    "nn.softmax",
    "Softmax along axis: exp(x) / sum(exp(x)).",
    relation=_softmax_relation,
    reference=tensor_reference(_softmax_reference),
    check="onnxruntime:Softmax",
    attrs_type=SoftmaxAttrs,
)


_op(
    "nn.log_softmax",
    "Logarithm of the softmax along axis.",
    relation=_softmax_relation,
    reference=tensor_reference(_log_softmax_reference),
    check="onnxruntime:LogSoftmax",
    attrs_type=SoftmaxAttrs,
)


@dataclass(frozen=True, slots=True)
class PReluAttrs(Attrs):
    """Attributes of ``nn.prelu``: the axis the slopes run along."""

    type_key: ClassVar[str] = "relay.attrs.PReluAttrs"
    axis: int = attr_field(AttrKind.INT, 1, doc="The channel axis alpha runs along.")


def _prelu_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, PReluAttrs)
    data = tensor_arg(arg_types[0], "data")
    alpha = tensor_arg(arg_types[1], "alpha")
    rank = len(data.shape)
    if not 0 <= a.axis < rank:
        raise RelationError(
            f"axis={a.axis} is out of range for a tensor of rank {rank} (prelu takes 0 to rank - 1)"
        )
    c = data.shape[a.axis]
    if len(alpha.shape) != 1 or dims_equal(alpha.shape[0], c) is False or alpha.dtype != data.dtype:
        raise RelationError(
            f"expected Tensor[({c},), {data.dtype}] for alpha, "
            f"found Tensor[{_shape_str(alpha.shape)}, {alpha.dtype}]"
        )
    return TensorType(data.shape, data.dtype)


def _prelu_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    a = _attrs(attrs, PReluAttrs)
    data, alpha = args
    slope = alpha.reshape(alpha.shape + (1,) * (data.ndim - a.axis - 1))
    positive = data > 0
    if data.dtype.kind == "f":
        cd = _compute_dtype(data.dtype)
        with np.errstate(all="ignore"):
            scaled = data.astype(cd) * slope.astype(cd)
        return np.where(positive, data, scaled.astype(data.dtype)).astype(data.dtype)
    if data.dtype == np.bool_:
        # false * alpha is false (i1 multiplication): the data itself.
        return data.copy()
    product: Any = _exact(data) * _exact(slope)
    # Only the selected products matter: a Select's unchosen operand may be poison.
    chosen = np.where(positive, _exact(data), product)
    return _int_result(np.asarray(chosen), data.dtype, "nn.prelu", "x * alpha")


_op(
    "nn.prelu",
    "Parametric ReLU: x where x > 0, else x times the slope of its channel.",
    relation=_prelu_relation,
    reference=tensor_reference(_prelu_reference),
    check="onnxruntime:PRelu",
    relation_name="PRelu",
    inputs=("data", "alpha"),
    attrs_type=PReluAttrs,
    pattern=OpPattern.BROADCAST,
)


def _float_data(x: _Num, op: str) -> _Num:
    """``x`` in its compute dtype, after checking it is a float."""
    _require_float(x, op)
    return x.astype(_compute_dtype(x.dtype))


_F32 = np.float32


_FAST_EXP_POLY = tuple(
    _F32(c)
    for c in (
        *(1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3),
        *(4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1),
    )
)


def fast_exp_float32(x: _Num) -> _Num:
    """TOPI's ``fast_exp_float32``, operation by operation in float32 (min and max are TVM's
    ordered selects)."""
    with np.errstate(all="ignore"):
        hi, lo = _F32(88.3762626647950), _F32(-88.3762626647949)
        clamped = np.where(x < hi, x, hi)
        clamped = np.where(clamped > lo, clamped, lo)
        n = np.floor(clamped * _F32(1.44269504088896341) + _F32(0.5))
        f = clamped - n * _F32(0.6931471805599453)
        y = _FAST_EXP_POLY[0]
        for c in _FAST_EXP_POLY[1:]:
            y = y * f + c
        y = y * f * f + f + _F32(1.0)
        exponent = np.nan_to_num(n + _F32(127.0)).astype(np.int32)
        scale = (exponent << 23).view(np.float32)
        value = scale * y
        return np.asarray(np.where(value > x, value, x), np.float32)


def _fast_softmax_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    a = _attrs(attrs, SoftmaxAttrs)
    data = args[0]
    x = _float_data(data, "nn.fast_softmax")
    axis = a.axis % data.ndim
    if not x.size:
        return data.copy()
    with np.errstate(all="ignore"):
        delta = x - np.max(x, axis=axis, keepdims=True)
        e = fast_exp_float32(delta) if data.dtype == np.float32 else np.exp(delta)
        out = e / np.sum(e, axis=axis, keepdims=True)
    return np.asarray(out).astype(data.dtype)


_op(
    "nn.fast_softmax",
    "Softmax along axis with TVM's fast approximate exp for float32.",
    relation=_softmax_relation,
    reference=tensor_reference(_fast_softmax_reference),
    check="onnxruntime:Softmax",
    attrs_type=SoftmaxAttrs,
)
