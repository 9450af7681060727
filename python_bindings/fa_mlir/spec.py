"""`fa.attention` described in Python, and its MLIR text.

Pure Python (no compiler, no torch): the runtime keys its kernels with
`AttentionSpec.key()` and the compiler half turns a spec into MLIR with
`AttentionSpec.mlir()`, so users need not write MLIR.
"""
import hashlib
import json
import math
import re
from dataclasses import asdict, dataclass, field, fields
from typing import Optional, Tuple

DTYPES = ("f16", "bf16", "f32")
# Window sides must be below this (fa.attention's verifier, kWindowSideLimit
# in include/fa/Dialect/FA/IR/FA.h).
WINDOW_SIDE_LIMIT = 2**30
# torch / numpy spellings accepted for convenience.
_DTYPE_ALIASES = {"float16": "f16", "half": "f16", "fp16": "f16", "bfloat16": "bf16",
                  "float32": "f32", "float": "f32", "fp32": "f32"}


def dtype_name(dtype):
    """"f16", "bf16" or "f32" for a string or a torch dtype; TypeError else."""
    text = str(dtype)
    if text.startswith("torch."):
        text = text[len("torch."):]
    text = _DTYPE_ALIASES.get(text, text)
    if text not in DTYPES:
        raise TypeError("unsupported dtype %r: expected one of f16, bf16, f32" % (dtype,))
    return text


def _positive_int(name, value, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be an int%s, got %r" % (
            name, " or None" if allow_none else "", value))
    if value <= 0:
        raise ValueError("%s must be positive, got %d" % (name, value))
    return value


def _positive_float(name, value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("%s must be a float or None, got %r" % (name, value))
    value = float(value)
    if not math.isfinite(value) or value <= 0:
        raise ValueError("%s must be a positive finite number, got %r" % (name, value))
    return value


def window_sides(value, causal):
    """`value` (None or a (left, right) pair of ints, -1 for an unbounded
    side) checked and as (left, right), (-1, -1) for None; with `causal`,
    right is 0 (fa.attention keeps it there, as FlashAttention-2 does).
    TypeError/ValueError naming a bad value. The one check of a window,
    for the op's spec and for the torch functions' arguments."""
    if value is None:
        return -1, -1
    if not isinstance(value, (tuple, list)) or len(value) != 2 or any(
            isinstance(w, bool) or not isinstance(w, int) for w in value):
        raise TypeError("window must be None or a pair of ints (left, right), got %r"
                        % (value,))
    left, right = value
    if left < -1 or right < -1:
        raise ValueError("window sizes must be >= 0, or -1 for unbounded, got %r" % (value,))
    if left >= WINDOW_SIDE_LIMIT or right >= WINDOW_SIDE_LIMIT:
        raise ValueError("window sizes must be below 2**30, got %r: a side that wide bounds "
                         "no sequence; use -1 for an unbounded side" % (value,))
    return left, (0 if causal else right)


def _window(value, causal):
    left, right = window_sides(value, causal)
    if (left, right) == (-1, -1) or (causal and left == -1):
        return None  # Unbounded on both sides (beyond causal) is no window.
    return (left, right)


@dataclass(frozen=True)
class AttentionSpec:
    """One `fa.attention`: Q [B, Hq, Nq, D], K [B, Hkv, Nk, D],
    V [B, Hkv, Nk, Dv] -> O [B, Hq, Nq, Dv] (and LSE [B, Hq, Nq] f32).

    batch, q_len, kv_len: None for dynamic sizes (`?`), read at run time.
    scale: None for 1/sqrt(D). window: (left, right), -1 = unbounded side,
    bottom-right aligned like causal. softcap: c in c * tanh(scale * s / c).
    backward: the gradient instead (`fa.attention_backward`: Q, K, V, O, dO,
    LSE -> dQ, dK, dV; with_lse is ignored).
    key_lengths: a K/V cache with per-sequence key counts (`key_lengths`
    operand, i32 [B]); page_size: a paged cache (`block_table` i32 [B,
    max_pages], K and V pools [num_pages, page_size, Hkv, D]; implies
    key_lengths, kv_len must be None). varlen: sequences packed along N of
    a batch of one (`cu_seqlens` operands, i32 [S + 1]; batch is 1, q_len
    and kv_len the packed totals, None for dynamic).
    """
    q_heads: int
    head_dim: int
    dtype: str = "f16"
    kv_heads: Optional[int] = None
    v_head_dim: Optional[int] = None
    batch: Optional[int] = None
    q_len: Optional[int] = None
    kv_len: Optional[int] = None
    causal: bool = False
    window: Optional[Tuple[int, int]] = None
    softcap: Optional[float] = None
    scale: Optional[float] = None
    with_lse: bool = True
    backward: bool = False
    key_lengths: bool = False
    page_size: Optional[int] = None
    varlen: bool = False

    def __post_init__(self):
        put = lambda name, value: object.__setattr__(self, name, value)  # frozen
        put("dtype", dtype_name(self.dtype))
        put("q_heads", _positive_int("q_heads", self.q_heads))
        put("kv_heads", _positive_int("kv_heads", self.q_heads if self.kv_heads is None
                                      else self.kv_heads))
        put("head_dim", _positive_int("head_dim", self.head_dim))
        put("v_head_dim", _positive_int("v_head_dim", self.head_dim if self.v_head_dim is None
                                        else self.v_head_dim))
        for name in ("batch", "q_len", "kv_len"):
            put(name, _positive_int(name, getattr(self, name), allow_none=True))
        if not all(isinstance(x, bool) for x in (self.causal, self.with_lse, self.backward)):
            raise TypeError("causal, with_lse and backward must be bools")
        if self.q_heads % self.kv_heads:
            raise ValueError("q_heads (%d) must be a multiple of kv_heads (%d)" % (
                self.q_heads, self.kv_heads))
        put("page_size", _positive_int("page_size", self.page_size, allow_none=True))
        if not isinstance(self.key_lengths, bool):
            raise TypeError("key_lengths must be a bool")
        if self.page_size is not None:
            if self.kv_len is not None:
                raise ValueError("a paged cache has no kv_len (each sequence has its own)")
            put("key_lengths", True)
        if self.key_lengths and self.backward:
            raise ValueError("a K/V cache (key_lengths, page_size) is for the forward only")
        if not isinstance(self.varlen, bool):
            raise TypeError("varlen must be a bool")
        if self.varlen:
            if self.backward or self.key_lengths:
                raise ValueError("varlen (packed sequences) is for the forward without a "
                                 "K/V cache")
            if self.batch not in (None, 1):
                raise ValueError("varlen packs the sequences into a batch of one, got "
                                 "batch=%d" % self.batch)
            put("batch", 1)
        put("window", _window(self.window, self.causal))
        put("softcap", _positive_float("softcap", self.softcap))
        put("scale", _positive_float("scale", self.scale))

    # -- identity ---------------------------------------------------------
    def as_dict(self):
        d = asdict(self)
        d["window"] = list(self.window) if self.window else None
        # Fields at their defaults are left out: the digests of the
        # configurations before them stay what they were.
        if not self.backward:
            del d["backward"]
        if not self.key_lengths:
            del d["key_lengths"]
        if self.page_size is None:
            del d["page_size"]
        if not self.varlen:
            del d["varlen"]
        return d

    @classmethod
    def from_dict(cls, d):
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError("unknown AttentionSpec fields: %s" % ", ".join(sorted(unknown)))
        d = dict(d)
        if d.get("window") is not None:
            d["window"] = tuple(d["window"])
        return cls(**d)

    def function_name(self):
        """A readable symbol naming the configuration, e.g.
        fa_d64_f16_causal_h32x8 (the kernel is <name>_kernel)."""
        name = "fa_d%d" % self.head_dim
        if self.v_head_dim != self.head_dim:
            name += "v%d" % self.v_head_dim
        name += "_%s_%s_h%dx%d" % (self.dtype, "causal" if self.causal else "full",
                                   self.q_heads, self.kv_heads)
        if self.window:
            name += "_w%sx%s" % tuple("n" if w < 0 else str(w) for w in self.window)
        if self.softcap:
            name += "_cap" + _number_tag(self.softcap)
        if self.scale:
            name += "_s" + _number_tag(self.scale)
        for letter, size in (("b", self.batch), ("q", self.q_len), ("k", self.kv_len)):
            if size is not None:
                name += "_%s%d" % (letter, size)
        if self.page_size is not None:
            name += "_paged%d" % self.page_size
        elif self.key_lengths:
            name += "_kvlens"
        if self.varlen:
            name += "_varlen"
        if self.backward:
            name += "_bwd"
        elif not self.with_lse:
            name += "_nolse"
        return name

    # -- MLIR -------------------------------------------------------------
    def mlir(self, name=None):
        """A func.func holding this fa.attention, in destination-passing
        style (O and LSE are the function's last arguments)."""
        name = name or self.function_name()
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$]*", name):
            raise ValueError("function name %r is not an MLIR/PTX identifier" % name)
        dim = lambda n: "?" if n is None else str(n)
        b, nq, nk = dim(self.batch), dim(self.q_len), dim(self.kv_len)
        q = "tensor<%sx%dx%sx%dx%s>" % (b, self.q_heads, nq, self.head_dim, self.dtype)
        if self.page_size is not None:
            # The pools [num_pages, page_size, Hkv, D].
            k = "tensor<?x%dx%dx%dx%s>" % (self.page_size, self.kv_heads, self.head_dim,
                                           self.dtype)
            v = "tensor<?x%dx%dx%dx%s>" % (self.page_size, self.kv_heads, self.v_head_dim,
                                           self.dtype)
        else:
            k = "tensor<%sx%dx%sx%dx%s>" % (b, self.kv_heads, nk, self.head_dim, self.dtype)
            v = "tensor<%sx%dx%sx%dx%s>" % (b, self.kv_heads, nk, self.v_head_dim, self.dtype)
        cache_args = cache_ops = ""
        if self.varlen:
            cu = "tensor<?xi32>"
            # max_seqlen_q: a launch input (the grid counts Q blocks by it
            # where that is fewer than the walk over the sequences).
            cache_args = ", %%cu_q: %s, %%cu_k: %s, %%max_q: index" % (cu, cu)
            cache_ops = " cu_seqlens(%%cu_q, %%cu_k : %s, %s) max_seqlen_q(%%max_q)" % (cu, cu)
        if self.key_lengths:
            lens = "tensor<%sxi32>" % b
            cache_args = ", %%lens: %s" % lens
            cache_ops = " key_lengths(%%lens : %s)" % lens
            if self.page_size is not None:
                table = "tensor<%sx?xi32>" % b
                cache_args += ", %%table: %s" % table
                cache_ops += " block_table(%%table : %s)" % table
        o = "tensor<%sx%dx%sx%dx%s>" % (b, self.q_heads, nq, self.v_head_dim, self.dtype)
        lse = "tensor<%sx%dx%sxf32>" % (b, self.q_heads, nq)
        attrs = ""
        if self.scale is not None:
            attrs += " scale(%s)" % _mlir_float(self.scale)
        if self.causal:
            attrs += " causal"
        if self.window:
            attrs += " window(%d, %d)" % self.window
        if self.softcap is not None:
            attrs += " softcap(%s)" % _mlir_float(self.softcap)
        if self.backward:
            grads = "%s, %s, %s" % (q, k, v)
            return ("func.func @{name}(%q: {q}, %k: {k}, %v: {v}, %o: {o}, %do: {o}, "
                    "%lse: {lse}, %dq: {q}, %dk: {k}, %dv: {v}) -> ({grads}) {{\n"
                    "  %0:3 = fa.attention_backward ins(%q, %k, %v, %o, %do, %lse : {q}, {k}, "
                    "{v}, {o}, {o}, {lse})\n"
                    "      outs(%dq, %dk, %dv : {grads}){attrs} -> {grads}\n"
                    "  return %0#0, %0#1, %0#2 : {grads}\n"
                    "}}\n").format(name=name, q=q, k=k, v=v, o=o, lse=lse, grads=grads,
                                    attrs=attrs)
        if self.with_lse:
            outs = "%%o, %%lse : %s, %s" % (o, lse)
            results = "%s, %s" % (o, lse)
            args = "%%q: %s, %%k: %s, %%v: %s%s, %%o: %s, %%lse: %s" % (
                q, k, v, cache_args, o, lse)
            ret = "%0, %1"
            lhs = "%0, %1"
        else:
            outs = "%%o : %s" % o
            results = o
            args = "%%q: %s, %%k: %s, %%v: %s%s, %%o: %s" % (q, k, v, cache_args, o)
            ret = lhs = "%0"
        return ("func.func @{name}({args}) -> ({results}) {{\n"
                "  {lhs} = fa.attention ins(%q, %k, %v : {q}, {k}, {v}){cache} outs({outs})"
                "{attrs}\n"
                "      -> {results}\n"
                "  return {ret} : {results}\n"
                "}}\n").format(name=name, args=args, results=results, lhs=lhs, q=q, k=k, v=v,
                               cache=cache_ops, outs=outs, attrs=attrs, ret=ret)


def _mlir_float(x):
    # repr round-trips. MLIR's float literal needs a decimal point in the
    # mantissa: 50 -> 50.0, 1e-05 -> 1.0e-05 (MLIR rejects "1e-05").
    mantissa, e, exponent = repr(float(x)).partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + e + exponent


def _number_tag(x):
    """A float as identifier characters: 50.0 -> 50, 0.125 -> 0p125."""
    text = ("%.6g" % x).replace(".", "p").replace("-", "m").replace("+", "")
    return text


def digest(obj):
    """A short stable hash of a JSON-able object (keys sorted)."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


@dataclass(frozen=True)
class KernelConfig:
    """What a compiled kernel is specialised on: the spec with dynamic
    B/Nq/Nk and the pipeline's options. `scale` is left out of the
    attention runtime's configurations (kernels take it as a parameter);
    `options` holds fa-to-ptx options (chip, block-m, ...), as strings."""
    spec: AttentionSpec
    options: Tuple[Tuple[str, str], ...] = field(default=(("chip", "sm_80"),))

    def as_dict(self):
        return {"spec": self.spec.as_dict(), "options": dict(self.options)}

    @classmethod
    def from_dict(cls, d):
        return cls(AttentionSpec.from_dict(d["spec"]),
                   tuple(sorted((str(k), str(v)) for k, v in d["options"].items())))

    @classmethod
    def make(cls, spec, options=None):
        opts = {"chip": "sm_80"}
        opts.update({str(k): _option_text(v) for k, v in (options or {}).items()})
        return cls(spec, tuple(sorted(opts.items())))

    def key(self):
        return digest(self.as_dict())

    def pipeline_options(self):
        return dict(self.options)


def _option_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)
