"""fa_mlir.attention: the compiled FlashAttention-2 forward on PyTorch tensors.

Imported on first use of fa_mlir.attention (it imports torch). The kernel
for a call's configuration comes from kernels.default_cache: memory, then
kernel directories (FA_MLIR_KERNEL_DIR), then the disk cache or a compile
when the compiler module is here.

`fa_mlir::attention` is a torch.library custom op with a fake (meta)
implementation, so torch.compile(fullgraph=True) traces through it and CUDA
graphs capture its launch; its autograd runs the backward kernels
(fa.attention_backward's plan: dq, dk, dv).
"""
import math
import os
from typing import Optional

import torch

from . import cache_append as _cache_append
from . import chips as _chips
from . import kernels as _kernels
from .errors import CompilerUnavailableError, MissingKernelError
from .runtime.plan import attention_scalars, backward_scalars
from .runtime.splits import choose_splits, decode_thread_blocks, kernel_shape
from .spec import window_sides

DTYPES = {torch.float16: "f16", torch.bfloat16: "bf16"}
LAYOUTS = ("bhnd", "bnhd")
HEAD_DIMS = tuple(range(16, 257, 16))
# Where the kernels run. Only the CPU tests that stand a reference in for the
# kernel (tests/test_torch_mock.py) widen this.
DEVICE_TYPES = ("cuda",)

_plans = {}  # _loaded_plan's key -> LoadedPlan
_multiprocessors = {}  # device index -> multiprocessor count
_device_chips = {}  # device index -> the chip device_chip() picked


def check_inputs(q, k, v, layout):
    """Checks what the tensors' metadata says (works on fake tensors too):
    type, device, dtype, rank, sizes, heads, head dim, last-dim stride.
    Returns q, k, v as [B, H, N, D] views. Base alignment, strides and the
    index width are checked against the plan before the launch."""
    if layout not in LAYOUTS:
        raise ValueError("layout must be 'bhnd' ([B, H, N, D], SDPA's) or 'bnhd' "
                         "([B, N, H, D], flash_attn_func's), got %r" % (layout,))
    dims = "[B, H, N, D]" if layout == "bhnd" else "[B, N, H, D]"
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError("%s must be a torch.Tensor, got %s" % (name, type(t).__name__))
        if t.device.type not in DEVICE_TYPES:
            raise ValueError("%s is on %s: fa_mlir.attention runs on CUDA tensors" % (
                name, t.device))
        if t.dim() != 4:
            raise ValueError("%s must have 4 dimensions %s (layout=%r), got shape %s" % (
                name, dims, layout, tuple(t.shape)))
    if q.dtype not in DTYPES:
        raise TypeError("q has dtype %s: fa_mlir.attention takes float16 or bfloat16" % q.dtype)
    if k.dtype != q.dtype or v.dtype != q.dtype:
        raise TypeError("q, k and v must have one dtype, got %s, %s, %s" % (
            q.dtype, k.dtype, v.dtype))
    if k.device != q.device or v.device != q.device:
        raise ValueError("q, k and v must be on one device, got %s, %s, %s" % (
            q.device, k.device, v.device))
    if layout == "bnhd":
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    b, hq, nq, d = q.shape
    if k.shape[0] != b or v.shape[0] != b:
        raise ValueError("batch sizes differ: q %d, k %d, v %d" % (b, k.shape[0], v.shape[0]))
    if k.shape[1] != v.shape[1]:
        raise ValueError("k and v must have the same number of heads, got %d and %d" % (
            k.shape[1], v.shape[1]))
    if k.shape[2] != v.shape[2]:
        raise ValueError("k and v must have the same sequence length, got %d and %d" % (
            k.shape[2], v.shape[2]))
    hkv = k.shape[1]
    if hkv == 0 or hq % hkv:
        raise ValueError("the query heads (%d) must be a multiple of the key/value heads (%d)"
                         % (hq, hkv))
    if k.shape[3] != d:
        raise ValueError("q and k must have the same head dim, got %d and %d" % (d, k.shape[3]))
    if v.shape[3] != d:
        raise ValueError("v's head dim (%d) differs from q's (%d): fa_mlir.attention needs "
                         "them equal" % (v.shape[3], d))
    if d not in HEAD_DIMS:
        raise ValueError("head dim %d is not supported: the kernels take multiples of 16 "
                         "from 16 to 256" % d)
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.stride(-1) != 1:
            raise ValueError("%s's last dimension (the head dim) must be contiguous (stride "
                             "1), got strides %s; call .contiguous() first" % (
                                 name, tuple(t.stride())))
    return q, k, v


def _options(causal, scale, softcap, window, head_dim):
    """The call's options as the custom ops take them: (scale, softcap,
    window_left, window_right), scale 1/sqrt(D) by default, softcap 0.0
    for none; TypeError/ValueError naming a bad one."""
    if not isinstance(causal, bool):
        raise TypeError("causal must be a bool, got %r" % (causal,))
    if scale is None:
        scale = 1.0 / math.sqrt(head_dim)
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not (
            math.isfinite(scale) and scale > 0):
        raise ValueError("scale must be a positive finite number, got %r" % (scale,))
    if softcap is None:
        softcap = 0.0
    if isinstance(softcap, bool) or not isinstance(softcap, (int, float)) or not (
            math.isfinite(softcap) and softcap >= 0):
        raise ValueError("softcap must be None or a positive finite number, got %r" % (softcap,))
    left, right = window_sides(window, causal)
    return float(scale), float(softcap), left, right


def device_chip(device=None):
    """The chip fa_mlir compiles for on `device` (a torch.device; None: the
    current CUDA device): FA_MLIR_CHIP when set, else the GPU's own
    (fa_mlir.chips: sm_90a on an H100/H200, sm_86 on an RTX 3090, ...), and
    the portable sm_80 where there is no CUDA device (the CPU tests)."""
    forced = os.environ.get("FA_MLIR_CHIP")
    if forced:
        try:
            _chips.parse_chip(forced)
        except ValueError as e:
            raise ValueError("FA_MLIR_CHIP: %s" % e) from None
        return forced
    if device is not None and device.type != "cuda":
        return _chips.PORTABLE_CHIP
    if device is None or device.index is None:
        if not torch.cuda.is_available():
            return _chips.PORTABLE_CHIP
        index = torch.cuda.current_device()
    else:
        index = device.index
    chip = _device_chips.get(index)
    if chip is None:
        chip = _device_chips[index] = _chips.chip_for_capability(
            *torch.cuda.get_device_capability(index))
    return chip


def _loaded_plan(dtype, hq, hkv, d, dv, causal, window, capped, q_len=None, splits=1,
                 chip=None, **form):
    """The loaded plan of a configuration, memoised by a plain tuple (the
    configuration's digest is computed on the first call only). `chip`:
    the chip to compile for (default device_chip()). `form`: the rest of
    kernels.attention_config's arguments (backward, deterministic,
    key_lengths, page_size, varlen). Where a kernel cannot be had (a kernel
    directory without it and no compiler), the portable sm_80 kernel of the
    same form serves (unless FA_MLIR_CHIP names the chip), then a split-KV
    form falls back to the unsplit one, then a static-Nq form to the
    dynamic-Nq one; the last form's error for `chip` is raised."""
    chip = chip or device_chip()
    key = (dtype, hq, hkv, d, dv, causal, window, capped, q_len, splits, chip,
           tuple(sorted(form.items())))
    plan = _plans.get(key)
    if plan is None:
        forced = bool(os.environ.get("FA_MLIR_CHIP"))
        error = None
        for candidate in [chip] + ([] if forced else _chips.fallback_chips(chip)):
            config = _kernels.attention_config(
                dtype, hq, hkv, d, dv, causal=causal,
                window=None if window == (-1, -1) else window, softcap=capped, q_len=q_len,
                splits=splits, chip=candidate, **form)
            try:
                plan = _kernels.default_cache.get(config)
                break
            except (MissingKernelError, CompilerUnavailableError) as e:
                error = error or e
        if plan is None:
            if splits != 1:
                plan = _loaded_plan(dtype, hq, hkv, d, dv, causal, window, capped, q_len, 1,
                                    chip, **form)
            elif q_len is not None:
                plan = _loaded_plan(dtype, hq, hkv, d, dv, causal, window, capped, None, 1,
                                    chip, **form)
            else:
                raise error
        _plans[key] = plan
    return plan


def plan_for(dtype, hq, hkv, d, dv, causal, window, capped, q_len=None, splits=1, chip=None):
    """The loaded forward plan of a configuration. `q_len` 1 (a decode step)
    asks for the kernel compiled for one static query, whose Q block is 16
    rows instead of 128 (docs/performance.md, "Decode"), and `splits` 0 for
    its split-KV form with the split count a run-time parameter
    (`num_splits`; > 1: the form compiled for that count); fallbacks as in
    _loaded_plan."""
    return _loaded_plan(dtype, hq, hkv, d, dv, causal, window, capped, q_len, splits, chip)


def decode_splits(device, batch, hq, hkv, nk, split_plan=None):
    """Split-KV chunks for a decode step (runtime/splits.py's rule, for the
    attention kernel of `split_plan`, the run-time-count plan, when given;
    1 when FA_MLIR_SPLITS=1 turns split-KV off, or FA_MLIR_SPLITS=S forces
    S)."""
    forced = os.environ.get("FA_MLIR_SPLITS")
    if forced:
        if not forced.isdigit() or not 1 <= int(forced) <= 1024:
            raise ValueError("FA_MLIR_SPLITS must be a split count from 1 to 1024, got %r"
                             % forced)
        return int(forced)
    index = device.index if device.index is not None else torch.cuda.current_device()
    sms = _multiprocessors.get(index)
    if sms is None:
        sms = _multiprocessors[index] = torch.cuda.get_device_properties(index).multi_processor_count
    shape = {}
    kernels = split_plan.plan.plan.get("kernels") if split_plan is not None else None
    if kernels:
        keys_per_block, per_sm = kernel_shape(kernels[0])
        shape = dict(keys_per_block=keys_per_block, blocks_per_multiprocessor=per_sm)
    return choose_splits(decode_thread_blocks(batch, hq, hkv), nk, sms, **shape)


def attention_impl(q, k, v, causal, scale, window_left, window_right, softcap, layout):
    """The real implementation (custom op body): (O, LSE) for [B, H, N, D]
    inputs, or [B, N, H, D] with layout "bnhd" (O alike; LSE [B, Hq, Nq])."""
    qh, kh, vh = check_inputs(q, k, v, layout)
    return _run(q, qh, kh, vh, causal, scale, window_left, window_right, softcap, layout)


def _run(q, qh, kh, vh, causal, scale, window_left, window_right, softcap, layout):
    """attention_impl after check_inputs (qh, kh, vh: [B, H, N, D] views)."""
    b, hq, nq, d = qh.shape
    hkv, nk, dv = kh.shape[1], kh.shape[2], vh.shape[3]
    if layout == "bnhd":
        out = torch.empty((b, nq, hq, dv), dtype=q.dtype, device=q.device)
        oh = out.transpose(1, 2)
    else:
        out = oh = torch.empty((b, hq, nq, dv), dtype=q.dtype, device=q.device)
    lse = torch.empty((b, hq, nq), dtype=torch.float32, device=q.device)
    if nk == 0:
        # No key at all: every row sees none (fa.attention: O = 0, LSE = -inf).
        out.zero_()
        lse.fill_(float("-inf"))
        return out, lse
    capped = softcap > 0.0
    decode = nq == 1
    splits = 1
    chip = device_chip(q.device)
    if decode and q.is_cuda:
        split_plan = plan_for(DTYPES[q.dtype], hq, hkv, d, dv, causal,
                              (window_left, window_right), capped, q_len=1, splits=0, chip=chip)
        splits = decode_splits(q.device, b, hq, hkv, nk, split_plan)
    plan = plan_for(DTYPES[q.dtype], hq, hkv, d, dv, causal, (window_left, window_right),
                    capped, q_len=1 if decode else None, splits=_compiled_splits(splits),
                    chip=chip)
    scalars = attention_scalars(plan.plan, scale, softcap if capped else None)
    plan(q=qh, k=kh, v=vh, o=oh, lse=lse, **scalars, **split_scalars(plan.plan, splits))
    return out, lse


def _compiled_splits(splits):
    """The `splits` option of the kernel that runs `splits` chunks: 0 (the
    count is a run-time parameter, one kernel for every count) or 1."""
    return 0 if splits > 1 else 1


def split_scalars(plan, splits):
    """{"num_splits": splits} for a plan whose split count is a run-time
    parameter, else nothing (an unsplit plan, which a kernel directory
    without the split-KV kernels leaves)."""
    return {"num_splits": splits} if "num_splits" in plan.scalars else {}


@torch.library.custom_op("fa_mlir::attention", mutates_args=())
def attention_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool,
                 scale: float, window_left: int, window_right: int, softcap: float,
                 layout: str) -> tuple[torch.Tensor, torch.Tensor]:
    return attention_impl(q, k, v, causal, scale, window_left, window_right, softcap, layout)


@attention_op.register_fake
def _attention_fake(q, k, v, causal, scale, window_left, window_right, softcap, layout):
    qh, kh, vh = check_inputs(q, k, v, layout)
    b, hq, nq, _ = qh.shape
    dv = vh.shape[3]
    shape = (b, nq, hq, dv) if layout == "bnhd" else (b, hq, nq, dv)
    return q.new_empty(shape), q.new_empty((b, hq, nq), dtype=torch.float32)


def backward_plan_for(dtype, hq, hkv, d, dv, causal, window, capped, deterministic=False,
                      chip=None):
    """The loaded backward plan (fa.attention_backward's three kernels) of a
    configuration. `deterministic`: the bitwise reproducible dQ (its own
    kernel) at every head dim; without it the compiler picks
    (FlashAttention-2's atomic accumulation at head dim 64;
    docs/backward.md)."""
    return _loaded_plan(dtype, hq, hkv, d, dv, causal, window, capped, chip=chip, backward=True,
                        deterministic=deterministic)


def _setup_context(ctx, inputs, output):
    q, k, v, causal, scale, window_left, window_right, softcap, layout = inputs
    out, lse = output
    ctx.save_for_backward(q, k, v, out, lse)
    ctx.options = (causal, scale, window_left, window_right, softcap, layout)
    ctx.set_materialize_grads(False)


def _backward(ctx, grad_out, grad_lse):
    """dQ, dK, dV from the backward kernels: recomputes P from the saved LSE,
    no [Nq, Nk] matrix is stored (docs/backward.md). A loss that uses LSE
    itself is not supported."""
    if grad_lse is not None:
        raise NotImplementedError(
            "fa_mlir.attention: the backward pass takes the gradient of O only; a loss "
            "that depends on the returned LSE is not supported")
    q, k, v, out, lse = ctx.saved_tensors
    causal, scale, window_left, window_right, softcap, layout = ctx.options
    if grad_out is None:
        return (None,) * 9
    qh, kh, vh = check_inputs(q, k, v, layout)
    b, hq, nq, d = qh.shape
    hkv, dv = kh.shape[1], vh.shape[3]
    dq, dk, dv_ = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    if grad_out.stride(-1) != 1 or any(s % 8 for s in grad_out.stride()[:-1]):
        grad_out = grad_out.contiguous()
    view = (lambda t: t.transpose(1, 2)) if layout == "bnhd" else (lambda t: t)
    if kh.shape[2] == 0 or nq == 0:
        return dq.zero_(), dk.zero_(), dv_.zero_(), None, None, None, None, None, None
    capped = softcap > 0.0
    # torch.use_deterministic_algorithms(True) asks for reproducible
    # gradients: the dQ without atomics.
    plan = backward_plan_for(DTYPES[q.dtype], hq, hkv, d, dv, causal,
                             (window_left, window_right), capped,
                             deterministic=torch.are_deterministic_algorithms_enabled(),
                             chip=device_chip(q.device))
    scalars = backward_scalars(plan.plan, scale, softcap if capped else None)
    plan(q=qh, k=kh, v=vh, o=view(out), do=view(grad_out), lse=lse, dq=view(dq),
         dk=view(dk), dv=view(dv_), **scalars)
    return dq, dk, dv_, None, None, None, None, None, None


torch.library.register_autograd("fa_mlir::attention", _backward,
                                setup_context=_setup_context)


def _fast_path(q, k, v):
    """True when calling the implementation directly is indistinguishable
    from calling the custom op: eager, plain tensors, no autograd to record,
    no torch function or dispatch mode active. Saves the dispatcher's host
    overhead on every eager call."""
    if _NO_FAST_PATH or torch.compiler.is_compiling():
        return False
    if type(q) is not torch.Tensor or type(k) is not torch.Tensor or type(v) is not torch.Tensor:
        return False
    if torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad):
        return False
    try:
        return (torch._C._len_torch_function_stack() == 0
                and torch._C._len_torch_dispatch_stack() == 0)
    except AttributeError:  # A torch without these: always dispatch.
        return False


_NO_FAST_PATH = os.environ.get("FA_MLIR_NO_FAST_PATH", "") not in ("", "0")


def attention(q, k, v, *, causal=False, scale=None, window=None, softcap=None,
              dropout_p=0.0, return_lse=False, layout="bhnd"):
    """Scaled dot-product attention (forward) with fa-mlir's kernels.

    q [B, Hq, Nq, D], k [B, Hkv, Nk, D], v [B, Hkv, Nk, D] on one CUDA
    device, float16 or bfloat16 (layout="bhnd", SDPA's); with layout="bnhd"
    they are [B, N, H, D] (flash_attn_func's) and so is the output. GQA/MQA:
    Hq a multiple of Hkv. D a multiple of 16 up to 256. Any strides with a
    contiguous last dimension, 16-byte aligned, other strides multiples of 8
    elements.

    causal: bottom-right aligned when Nq != Nk, as FlashAttention-2 (query
        row i sees key j iff j <= i + Nk - Nq); SDPA's is_causal is top-left.
        A row that sees no key gets O = 0 and LSE = -inf.
    scale: softmax scale, default 1/sqrt(D).
    window: (left, right) sliding window, FlashAttention-2's window_size
        (-1 = unbounded side), bottom-right aligned like causal.
    softcap: c > 0 caps the scores as c * tanh(scale * s / c) (Gemma 2).
    dropout_p: must be 0.0 (NotImplementedError otherwise).
    return_lse: also return LSE [B, Hq, Nq] (float32, natural log).

    Returns O (and LSE). Differentiable in q, k and v (the backward kernels
    of fa.attention_backward; a loss that uses LSE is not supported): at
    head dim 64 dQ is accumulated with atomics as in FlashAttention-2 (dK
    and dV are reproducible); at other head dims, and at 64 under
    torch.use_deterministic_algorithms(True), by its own kernel, bitwise
    reproducible. Bad input
    raises TypeError/ValueError before any launch; a configuration with no
    kernel and no compiler raises fa_mlir.MissingKernelError.
    """
    if dropout_p != 0.0:
        raise NotImplementedError("fa_mlir.attention has no dropout (dropout_p must be 0.0)")
    qh, kh, vh = check_inputs(q, k, v, layout)
    scale, softcap, left, right = _options(causal, scale, softcap, window, qh.shape[-1])
    if _fast_path(q, k, v):
        out, lse = _run(q, qh, kh, vh, causal, scale, left, right, softcap, layout)
    else:
        out, lse = torch.ops.fa_mlir.attention(q, k, v, causal, scale, left, right, softcap,
                                               layout)
    return (out, lse) if return_lse else out


# -- K/V caches (FlashAttention's flash_attn_with_kvcache conventions) -------

def check_cache_inputs(q, k_cache, v_cache, cache_seqlens, block_table):
    """Checks a K/V-cache call's metadata. Returns (qh, kh, vh, lengths,
    table): q as a [B, Hq, Nq, D] view, the cache as fa.attention takes it
    (dense: [B, Hkv, Nk, D] views; paged: the pools [num_pages, page_size,
    Hkv, D] as they are), the key lengths as an int32 [B] tensor and the
    block table (or None)."""
    for name, t in (("q", q), ("k_cache", k_cache), ("v_cache", v_cache)):
        if not isinstance(t, torch.Tensor):
            raise TypeError("%s must be a torch.Tensor, got %s" % (name, type(t).__name__))
        if t.device.type not in DEVICE_TYPES:
            raise ValueError("%s is on %s: fa_mlir runs on CUDA tensors" % (name, t.device))
        if t.dim() != 4:
            raise ValueError("%s must have 4 dimensions, got shape %s" % (name, tuple(t.shape)))
    if q.dtype not in DTYPES:
        raise TypeError("q has dtype %s: fa_mlir takes float16 or bfloat16" % q.dtype)
    if k_cache.dtype != q.dtype or v_cache.dtype != q.dtype:
        raise TypeError("q, k_cache and v_cache must have one dtype, got %s, %s, %s" % (
            q.dtype, k_cache.dtype, v_cache.dtype))
    if k_cache.device != q.device or v_cache.device != q.device:
        raise ValueError("q, k_cache and v_cache must be on one device")
    b, nq, hq, d = q.shape
    if k_cache.shape[:3] != v_cache.shape[:3]:
        raise ValueError("k_cache and v_cache must have the same leading dims, got %s and %s"
                         % (tuple(k_cache.shape), tuple(v_cache.shape)))
    hkv = k_cache.shape[2]
    if hkv == 0 or hq % hkv:
        raise ValueError("the query heads (%d) must be a multiple of the key/value heads (%d)"
                         % (hq, hkv))
    if k_cache.shape[3] != d or v_cache.shape[3] != d:
        raise ValueError("q, k_cache and v_cache must have one head dim, got %d, %d, %d" % (
            d, k_cache.shape[3], v_cache.shape[3]))
    if d not in HEAD_DIMS:
        raise ValueError("head dim %d is not supported: the kernels take multiples of 16 "
                         "from 16 to 256" % d)
    for name, t in (("q", q), ("k_cache", k_cache), ("v_cache", v_cache)):
        if t.stride(-1) != 1:
            raise ValueError("%s's last dimension must be contiguous (stride 1), got strides "
                             "%s" % (name, tuple(t.stride())))
    if isinstance(cache_seqlens, bool):
        raise TypeError("cache_seqlens must be an int or an int32 tensor [B]")
    if isinstance(cache_seqlens, int):
        lengths = torch.full((b,), cache_seqlens, dtype=torch.int32, device=q.device)
    elif isinstance(cache_seqlens, torch.Tensor):
        if cache_seqlens.dtype != torch.int32 or cache_seqlens.dim() != 1 or \
                cache_seqlens.shape[0] != b:
            raise ValueError("cache_seqlens must be an int32 tensor of shape [B] = [%d], got "
                             "%s %s" % (b, cache_seqlens.dtype, tuple(cache_seqlens.shape)))
        if cache_seqlens.device != q.device:
            raise ValueError("cache_seqlens must be on q's device (%s), got %s" % (
                q.device, cache_seqlens.device))
        lengths = cache_seqlens if cache_seqlens.stride(0) == 1 else cache_seqlens.contiguous()
    else:
        raise TypeError("cache_seqlens must be an int or an int32 tensor [B], got %s"
                        % type(cache_seqlens).__name__)
    qh = q.transpose(1, 2)
    if block_table is None:
        if k_cache.shape[0] != b:
            raise ValueError("a dense cache has one sequence per batch entry: k_cache has "
                             "%d, q %d" % (k_cache.shape[0], b))
        return qh, k_cache.transpose(1, 2), v_cache.transpose(1, 2), lengths, None
    if not isinstance(block_table, torch.Tensor) or block_table.dtype != torch.int32 or \
            block_table.dim() != 2 or block_table.shape[0] != b:
        raise ValueError("block_table must be an int32 tensor [B, max_pages] with B = %d, got "
                         "%s" % (b, block_table if not isinstance(block_table, torch.Tensor)
                                 else "%s %s" % (block_table.dtype, tuple(block_table.shape))))
    if block_table.shape[1] == 0:
        raise ValueError("block_table needs at least one page per sequence, got shape %s"
                         % (tuple(block_table.shape),))
    if block_table.device != q.device:
        raise ValueError("block_table must be on q's device (%s), got %s" % (
            q.device, block_table.device))
    if block_table.stride(-1) != 1:
        block_table = block_table.contiguous()
    page_size = k_cache.shape[1]
    if page_size % 16 or k_cache.shape[0] == 0:
        raise ValueError("a paged cache needs at least one page and a page size that is a "
                         "multiple of 16 (a K/V block is read from one page), got k_cache "
                         "shape %s" % (tuple(k_cache.shape),))
    return qh, k_cache, v_cache, lengths, block_table


def cache_plan_for(dtype, hq, hkv, d, causal, window, capped, q_len, splits, page_size,
                   chip=None):
    """The loaded plan of a K/V-cache configuration (page_size None: a dense
    cache with per-sequence lengths); fallbacks as in _loaded_plan."""
    return _loaded_plan(dtype, hq, hkv, d, d, causal, window, capped, q_len, splits, chip,
                        key_lengths=True, page_size=page_size)


def kvcache_impl(q, k_cache, v_cache, cache_seqlens, block_table, causal, scale, window_left,
                 window_right, softcap):
    """(O [B, Nq, Hq, D], LSE [B, Hq, Nq]) of attention over a K/V cache."""
    qh, kh, vh, lengths, table = check_cache_inputs(q, k_cache, v_cache, cache_seqlens,
                                                    block_table)
    b, hq, nq, d = qh.shape
    out = torch.empty((b, nq, hq, d), dtype=q.dtype, device=q.device)
    lse = torch.empty((b, hq, nq), dtype=torch.float32, device=q.device)
    paged = table is not None
    hkv = kh.shape[2] if paged else kh.shape[1]
    capacity = table.shape[1] * kh.shape[1] if paged else kh.shape[2]
    if out.numel() == 0:
        return out, lse
    if capacity == 0:
        out.zero_()
        lse.fill_(float("-inf"))
        return out, lse
    capped = softcap > 0.0
    decode = nq == 1
    # The split count from the cache's capacity: the lengths are on the GPU.
    splits = 1
    chip = device_chip(q.device)
    if decode and q.is_cuda:
        split_plan = cache_plan_for(DTYPES[q.dtype], hq, hkv, d, causal,
                                    (window_left, window_right), capped, 1, 0,
                                    kh.shape[1] if paged else None, chip=chip)
        splits = decode_splits(q.device, b, hq, hkv, capacity, split_plan)
    plan = cache_plan_for(DTYPES[q.dtype], hq, hkv, d, causal, (window_left, window_right),
                          capped, 1 if decode else None, _compiled_splits(splits),
                          kh.shape[1] if paged else None, chip=chip)
    scalars = attention_scalars(plan.plan, scale, softcap if capped else None)
    scalars.update(split_scalars(plan.plan, splits))
    arrays = dict(q=qh, k=kh, v=vh, key_lengths=lengths, o=out.transpose(1, 2), lse=lse)
    if paged:
        arrays["block_table"] = table
    plan(**arrays, **scalars)
    return out, lse


@torch.library.custom_op("fa_mlir::attention_with_kvcache", mutates_args=())
def kvcache_op(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor,
               cache_seqlens: torch.Tensor, block_table: Optional[torch.Tensor], causal: bool,
               scale: float, window_left: int, window_right: int,
               softcap: float) -> tuple[torch.Tensor, torch.Tensor]:
    return kvcache_impl(q, k_cache, v_cache, cache_seqlens, block_table, causal, scale,
                        window_left, window_right, softcap)


@kvcache_op.register_fake
def _kvcache_fake(q, k_cache, v_cache, cache_seqlens, block_table, causal, scale,
                  window_left, window_right, softcap):
    b, nq, hq, d = q.shape
    return q.new_empty((b, nq, hq, d)), q.new_empty((b, hq, nq), dtype=torch.float32)


def attention_with_kvcache(q, k_cache, v_cache, cache_seqlens, block_table=None, *,
                           k=None, v=None, causal=False, scale=None, window=None,
                           softcap=None, return_lse=False):
    """Attention of new queries over a K/V cache, in FlashAttention's
    flash_attn_with_kvcache conventions (inference: no autograd).

    q [B, Nq, Hq, D]; the cache either dense, k_cache/v_cache [B, Nk_max,
    Hkv, D], or paged, [num_pages, page_size, Hkv, D] with block_table
    (int32 [B, max_pages]: sequence b's key j is row j % page_size of page
    block_table[b, j // page_size]; page_size a multiple of 16).
    cache_seqlens: int32 tensor [B] (or one int): sequence b attends to its
    first cache_seqlens[b] keys (clamped to [0, capacity]); causal and
    window are aligned to each sequence's own bottom-right corner, as in
    FlashAttention. k, v [B, Nnew, Hkv, D] (optional): new keys and values,
    written into the cache in place at positions cache_seqlens[b] + t
    before the attention, which then sees cache_seqlens[b] + Nnew keys
    (fa_mlir.cache_append says how an overflow is handled).
    float16/bfloat16, D a multiple of 16 up to 256.

    Returns O [B, Nq, Hq, D] (and LSE [B, Hq, Nq], float32, with
    return_lse). Table entries past a sequence's pages are never read.
    """
    qh, kh, vh, lengths, table = check_cache_inputs(q, k_cache, v_cache, cache_seqlens,
                                                    block_table)
    scale, softcap, left, right = _options(causal, scale, softcap, window, q.shape[-1])
    _cache_append.check_new_keys(k, v, k_cache, q)
    if k is not None:
        lengths = _cache_append.append(k_cache, v_cache, k, v,
                                       cache_seqlens if isinstance(cache_seqlens, int)
                                       else lengths, table)
        if isinstance(lengths, int):
            lengths = torch.full((q.shape[0],), lengths, dtype=torch.int32, device=q.device)
    args = (q, k_cache, v_cache, lengths, table, causal, scale, left, right, softcap)
    if _fast_path(q, k_cache, v_cache):
        out, lse = kvcache_impl(*args)
    else:
        out, lse = torch.ops.fa_mlir.attention_with_kvcache(*args)
    return (out, lse) if return_lse else out


# -- Packed sequences (FlashAttention's flash_attn_varlen_func conventions) --

def check_varlen_inputs(q, k, v, cu_seqlens_q, cu_seqlens_k):
    """Checks a packed call's metadata; returns q, k, v as [1, H, total, D]
    views (the layout fa.attention with cu_seqlens takes)."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError("%s must be a torch.Tensor, got %s" % (name, type(t).__name__))
        if t.device.type not in DEVICE_TYPES:
            raise ValueError("%s is on %s: fa_mlir runs on CUDA tensors" % (name, t.device))
        if t.dim() != 3:
            raise ValueError("%s must have 3 dimensions [total, H, D], got shape %s" % (
                name, tuple(t.shape)))
    if q.dtype not in DTYPES:
        raise TypeError("q has dtype %s: fa_mlir takes float16 or bfloat16" % q.dtype)
    if k.dtype != q.dtype or v.dtype != q.dtype:
        raise TypeError("q, k and v must have one dtype, got %s, %s, %s" % (
            q.dtype, k.dtype, v.dtype))
    if k.device != q.device or v.device != q.device:
        raise ValueError("q, k and v must be on one device")
    hq, d = q.shape[1], q.shape[2]
    if k.shape != v.shape:
        raise ValueError("k and v must have one shape, got %s and %s" % (
            tuple(k.shape), tuple(v.shape)))
    hkv = k.shape[1]
    if hkv == 0 or hq % hkv:
        raise ValueError("the query heads (%d) must be a multiple of the key/value heads (%d)"
                         % (hq, hkv))
    if k.shape[2] != d:
        raise ValueError("q, k and v must have one head dim, got %d and %d" % (d, k.shape[2]))
    if d not in HEAD_DIMS:
        raise ValueError("head dim %d is not supported: the kernels take multiples of 16 "
                         "from 16 to 256" % d)
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.stride(-1) != 1:
            raise ValueError("%s's last dimension must be contiguous (stride 1), got strides "
                             "%s" % (name, tuple(t.stride())))
    cus = []
    for name, cu in (("cu_seqlens_q", cu_seqlens_q), ("cu_seqlens_k", cu_seqlens_k)):
        if not isinstance(cu, torch.Tensor) or cu.dtype != torch.int32 or cu.dim() != 1 or \
                cu.shape[0] < 1:
            raise ValueError("%s must be an int32 tensor [S + 1], got %s" % (
                name, cu if not isinstance(cu, torch.Tensor)
                else "%s %s" % (cu.dtype, tuple(cu.shape))))
        if cu.device != q.device:
            raise ValueError("%s must be on q's device (%s), got %s" % (name, q.device,
                                                                         cu.device))
        cus.append(cu if cu.stride(0) == 1 else cu.contiguous())
    if cus[0].shape != cus[1].shape:
        raise ValueError("cu_seqlens_q and cu_seqlens_k must have one length (S + 1), got "
                         "%d and %d" % (cus[0].shape[0], cus[1].shape[0]))
    view = lambda t: t.permute(1, 0, 2).unsqueeze(0)
    return view(q), view(k), view(v), cus[0], cus[1]


def varlen_plan_for(dtype, hq, hkv, d, causal, window, capped, chip=None):
    """The loaded plan of packed sequences (fa_mlir.attention_varlen)."""
    return _loaded_plan(dtype, hq, hkv, d, d, causal, window, capped, chip=chip, varlen=True)


def varlen_impl(q, k, v, cu_seqlens_q, cu_seqlens_k, causal, scale, window_left,
                window_right, softcap, max_seqlen_q):
    """(O [total_q, Hq, D], LSE [Hq, total_q]) of packed sequences."""
    qh, kh, vh, cu_q, cu_k = check_varlen_inputs(q, k, v, cu_seqlens_q, cu_seqlens_k)
    total_q, hq, d = q.shape
    out = torch.empty((total_q, hq, d), dtype=q.dtype, device=q.device)
    lse = torch.empty((1, hq, total_q), dtype=torch.float32, device=q.device)
    if out.numel() == 0:
        return out, lse[0]
    capped = softcap > 0.0
    plan = varlen_plan_for(DTYPES[q.dtype], hq, kh.shape[1], d, causal,
                           (window_left, window_right), capped, chip=device_chip(q.device))
    scalars = attention_scalars(plan.plan, scale, softcap if capped else None)
    if "max_seqlen_q" in plan.plan.scalars:  # (kernels from before it lack it)
        scalars["max_seqlen_q"] = max_seqlen_q
    plan(q=qh, k=kh, v=vh, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k,
         o=out.permute(1, 0, 2).unsqueeze(0), lse=lse, **scalars)
    return out, lse[0]


@torch.library.custom_op("fa_mlir::attention_varlen", mutates_args=())
def varlen_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, cu_seqlens_q: torch.Tensor,
              cu_seqlens_k: torch.Tensor, causal: bool, scale: float, window_left: int,
              window_right: int, softcap: float,
              max_seqlen_q: int) -> tuple[torch.Tensor, torch.Tensor]:
    return varlen_impl(q, k, v, cu_seqlens_q, cu_seqlens_k, causal, scale, window_left,
                       window_right, softcap, max_seqlen_q)


@varlen_op.register_fake
def _varlen_fake(q, k, v, cu_seqlens_q, cu_seqlens_k, causal, scale, window_left,
                 window_right, softcap, max_seqlen_q):
    total_q, hq, d = q.shape
    return q.new_empty((total_q, hq, d)), q.new_empty((hq, total_q), dtype=torch.float32)


def _max_seqlen(max_seqlen_q, total_q):
    """max_seqlen_q as the kernels take it: an int in [0, total_q] (a larger
    bound says no more than total_q does); None is total_q."""
    if max_seqlen_q is None:
        return total_q
    if isinstance(max_seqlen_q, torch.Tensor) and max_seqlen_q.dim() == 0 and \
            not max_seqlen_q.is_floating_point() and max_seqlen_q.dtype != torch.bool:
        max_seqlen_q = int(max_seqlen_q)
    if isinstance(max_seqlen_q, bool) or not isinstance(max_seqlen_q, int):
        raise TypeError("max_seqlen_q must be an int (or None), got %s"
                        % type(max_seqlen_q).__name__)
    if max_seqlen_q < 0:
        raise ValueError("max_seqlen_q must be >= 0, got %d" % max_seqlen_q)
    return min(max_seqlen_q, total_q)


def attention_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q=None,
                     max_seqlen_k=None, *, causal=False, scale=None, window=None,
                     softcap=None, return_lse=False):
    """Attention over a batch of sequences of different lengths packed
    along the tokens, in FlashAttention's flash_attn_varlen_func conventions
    (forward only, no autograd).

    q [total_q, Hq, D], k and v [total_k, Hkv, D]; cu_seqlens_q and
    cu_seqlens_k int32 [S + 1] on the device: sequence s is query rows
    [cu_q[s], cu_q[s + 1]) against keys [cu_k[s], cu_k[s + 1]), both
    non-decreasing from 0 with cu_q[S] = total_q and cu_k[S] <= total_k (as
    in FlashAttention, not checked: that would need a device sync). causal
    and window align to each sequence's own bottom-right corner.
    max_seqlen_q, as in FlashAttention, must be at least every sequence's
    query count (not checked on the host: that would need a device sync; a
    sequence longer than it makes the kernel trap, a CUDA error, never a
    wrong result); the kernel then numbers the Q blocks per sequence,
    ceil(max_seqlen_q / block) of each, where that is fewer than its walk
    over the sequences (exact for equal lengths). None stands for total_q,
    always a bound. max_seqlen_k is accepted for FlashAttention's signature
    and not needed. float16/bfloat16, D a multiple of 16 up to 256.

    Returns O [total_q, Hq, D] (and LSE [Hq, total_q], float32).
    """
    check_varlen_inputs(q, k, v, cu_seqlens_q, cu_seqlens_k)
    scale, softcap, left, right = _options(causal, scale, softcap, window, q.shape[-1])
    max_q = _max_seqlen(max_seqlen_q, q.shape[0])
    args = (q, k, v, cu_seqlens_q, cu_seqlens_k, causal, scale, left, right, softcap, max_q)
    if _fast_path(q, k, v):
        out, lse = varlen_impl(*args)
    else:
        out, lse = torch.ops.fa_mlir.attention_varlen(*args)
    return (out, lse) if return_lse else out
