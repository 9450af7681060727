"""Exceptions of fa_mlir (pure Python)."""
import re
from dataclasses import dataclass, field
from typing import List, Optional


@dataclass
class Diagnostic:
    """One MLIR diagnostic. `location` is as MLIR prints it
    (`"<input>":3:8`); `line` and `column` are parsed from it when it is a
    file location (1-based), else None."""
    severity: str
    location: str
    message: str
    notes: List["Diagnostic"] = field(default_factory=list)
    line: Optional[int] = None
    column: Optional[int] = None

    @classmethod
    def from_native(cls, d):
        m = re.search(r":(\d+):(\d+)$", d["location"])
        return cls(d["severity"], d["location"], d["message"],
                   [cls.from_native(n) for n in d["notes"]],
                   int(m.group(1)) if m else None, int(m.group(2)) if m else None)

    def format(self, source=None, indent=""):
        text = "%s%s: %s: %s" % (indent, self.location, self.severity, self.message)
        if source is not None and self.line is not None:
            lines = source.splitlines()
            if 1 <= self.line <= len(lines):
                code = lines[self.line - 1]
                text += "\n%s  %s\n%s  %s^" % (indent, code, indent,
                                                " " * max(self.column - 1, 0))
        for note in self.notes:
            text += "\n" + note.format(source, indent + "  ")
        return text


class CompileError(Exception):
    """The compiler rejected the input, the pipeline or its options.

    `diagnostics` holds every Diagnostic MLIR reported (errors, and the
    warnings and notes around them); str() shows them with the source line.
    """

    def __init__(self, diagnostics, source=None, what="compilation failed"):
        self.diagnostics = list(diagnostics)
        self.source = source
        errors = [d for d in self.diagnostics if d.severity == "error"] or self.diagnostics
        self.message = errors[0].message if errors else what
        body = "\n".join(d.format(source) for d in self.diagnostics)
        super().__init__("%s\n%s" % (what, body) if body else what)


class CompilerUnavailableError(ImportError):
    """The native compiler module (_fa_mlir_compiler) is not built or not
    importable here: only the runtime half works."""


class MissingKernelError(LookupError):
    """No compiled kernel for a configuration, and no compiler to make one."""


class UnsupportedDeviceError(RuntimeError):
    """The GPU cannot run a kernel: compute capability below 8.0 (the sm_80
    atom's bf16 `mma.sync` and `cp.async` need Ampere), PTX compiled for a
    newer chip, or more shared memory a thread block than the GPU gives.
    The message names the chip to compile for (fa_mlir.chips)."""
