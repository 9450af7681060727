"""fa_mlir: fa-mlir's FlashAttention-2 kernels from Python.

Two halves (docs/python.md):

* the compiler (`fa_mlir.compiler`, needs the native module
  _fa_mlir_compiler): MLIR text or an AttentionSpec in, IR at any stage or
  PTX with launch plans out, diagnostics as CompileError;
* the runtime (`fa_mlir.attention`, `fa_mlir.runtime`), pure Python on
  torch and cuda-python: runs precompiled kernels (FA_MLIR_KERNEL_DIR,
  `python -m fa_mlir.aot`) or, where the compiler is, compiles on a miss.

`import fa_mlir` imports neither torch nor the native module.
"""
from .errors import (CompileError, CompilerUnavailableError, Diagnostic, MissingKernelError,
                     UnsupportedDeviceError)
from .kernels import add_kernel_dir
from .spec import AttentionSpec

__version__ = "0.1.0"
__all__ = ["AttentionSpec", "CompileError", "CompilerUnavailableError", "Diagnostic",
           "MissingKernelError", "UnsupportedDeviceError", "add_kernel_dir", "attention", "attention_varlen",
           "attention_with_kvcache"]


def __getattr__(name):
    # fa_mlir.attention imports torch: only when asked for. Returning the
    # function itself (not a wrapper) lets torch.compile trace straight in.
    if name == "attention":
        from .ops import attention
        return attention
    if name == "attention_varlen":
        from .ops import attention_varlen
        return attention_varlen
    if name == "attention_with_kvcache":
        from .ops import attention_with_kvcache
        return attention_with_kvcache
    raise AttributeError("module 'fa_mlir' has no attribute %r" % name)
