"""Which chip the runtime compiles for, and whether a plan can run on a GPU.

Pure Python (no torch, no compiler needed).

fa_mlir.attention compiles (or looks up) kernels for the chip of the GPU it
runs on, as Triton does: an H100 or H200 gets `sm_90a` kernels (wgmma and
TMA, fa-to-ptx's atom=auto; 227 KB of shared memory a thread block), an
RTX 3090/4090 `sm_86`/`sm_89` ones (99 KB: the table's smaller tiles),
where a single `sm_80` default would fail to launch the kernels that need
more than the chip has. FA_MLIR_CHIP overrides the choice.

Where a kernel of the GPU's own chip cannot be had (a kernel directory
without it and no compiler), `fallback_chips` names the others whose PTX
runs there: for sm_90a the portable sm_90 (the #fa.mma_sync kernels of
earlier kernel directories), then sm_80 (fa_mlir.aot's default). PTX for
sm_XY runs on every GPU of compute capability XY or more (the driver
compiles it), as long as the thread block's shared memory fits (checked
when the plan is loaded: `check_plan_fits`).
"""

from .errors import UnsupportedDeviceError

# The chips fa-opt's `chip=` takes (lib/Dialect/FA/IR/Chips.cpp; a test
# compares the two lists), without the architecture-specific `a` variants,
# which run only on their own chip.
KNOWN_CHIPS = ("sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_100", "sm_103", "sm_120",
               "sm_121")

# The `a` chips the runtime picks on their own GPU: those for which fa-opt
# has instructions the portable chip lacks (sm_90a: the #fa.wgmma atom,
# wgmma.mma_async and TMA; docs/performance.md, "atom=auto on sm_90a").
# sm_100a and newer would give nothing over sm_100 yet.
PREFERRED_ARCH_SPECIFIC = {(9, 0): "sm_90a"}

# The chip an AOT directory's kernels are compiled for unless told otherwise.
PORTABLE_CHIP = "sm_80"


def parse_chip(name):
    """(major, minor, arch_specific) of `sm_XY` / `sm_XYa`; ValueError for
    anything else."""
    text = str(name)
    if not text.startswith("sm_"):
        raise ValueError("not a chip name: %r (expected sm_XY, e.g. sm_80)" % (name,))
    digits = text[3:]
    specific = digits.endswith("a")
    digits = digits.rstrip("a")
    if not digits.isdigit() or len(digits) < 2:
        raise ValueError("not a chip name: %r (expected sm_XY, e.g. sm_80)" % (name,))
    return int(digits[:-1]), int(digits[-1]), specific


def chip_for_capability(major, minor):
    """The chip to compile for on a GPU of compute capability major.minor:
    its architecture-specific chip where fa-opt has an atom for it (sm_90a
    on 9.0), else its own where fa-opt knows it, else the newest known one
    below it (whose PTX the driver compiles for this GPU).
    UnsupportedDeviceError below 8.0."""
    if (major, minor) < (8, 0):
        raise UnsupportedDeviceError(
            "fa_mlir needs a GPU of compute capability 8.0 or newer (Ampere: mma.sync "
            "with bf16, cp.async); this one is %d.%d" % (major, minor))
    if (major, minor) in PREFERRED_ARCH_SPECIFIC:
        return PREFERRED_ARCH_SPECIFIC[(major, minor)]
    return portable_chip_for_capability(major, minor)


def portable_chip_for_capability(major, minor):
    """The newest chip of KNOWN_CHIPS (no `a` chip) whose PTX runs on a GPU
    of compute capability major.minor (>= 8.0)."""
    below = [c for c in KNOWN_CHIPS if parse_chip(c)[:2] <= (major, minor)]
    return max(below, key=lambda c: parse_chip(c)[:2])


def can_run(chip, major, minor):
    """Whether PTX compiled for `chip` runs on a GPU of capability
    major.minor: an `a` chip on exactly its own, any other on its own and
    every newer one."""
    cmaj, cmin, specific = parse_chip(chip)
    if specific:
        return (cmaj, cmin) == (major, minor)
    return (cmaj, cmin) <= (major, minor)


def fallback_chips(chip):
    """The chips whose kernels may serve where `chip`'s cannot be had (no
    compiler, not in a kernel directory), in order: for an `a` chip, the
    portable chip of its own capability (sm_90a: sm_90); then the portable
    sm_80, where its PTX runs and it is not `chip` itself."""
    major, minor, specific = parse_chip(chip)
    chips = []
    if specific and (major, minor) >= (8, 0):
        own = portable_chip_for_capability(major, minor)
        if own != chip:
            chips.append(own)
    if PORTABLE_CHIP != chip and PORTABLE_CHIP not in chips and can_run(PORTABLE_CHIP, major,
                                                                         minor):
        chips.append(PORTABLE_CHIP)
    return chips


def check_plan_fits(plan_name, plan_chip, kernels, major, minor, shared_optin):
    """Raises UnsupportedDeviceError naming the problem when a launch plan
    cannot run on a GPU of capability major.minor with `shared_optin` bytes
    of shared memory a thread block (None: not checked): PTX for a newer (or
    another `a`) chip, or a kernel whose dynamic shared memory is more than
    the GPU has. The message says which chip to compile for."""
    own = chip_for_capability(major, minor)
    advice = "compile for %s (FA_MLIR_CHIP=%s, or python -m fa_mlir.aot --chip %s)" % (
        own, own, own)
    if plan_chip and plan_chip != "none" and not can_run(plan_chip, major, minor):
        raise UnsupportedDeviceError(
            "plan %s is compiled for %s and cannot run on this GPU (compute capability "
            "%d.%d): %s" % (plan_name, plan_chip, major, minor, advice))
    if shared_optin is None:
        return
    for kernel in kernels:
        need = int(kernel.get("dynamic_shared_memory", 0))
        if need > shared_optin:
            raise UnsupportedDeviceError(
                "kernel %s of plan %s (compiled for %s) needs %d bytes of shared memory a "
                "thread block; this GPU (compute capability %d.%d) gives at most %d: %s" % (
                    kernel.get("name"), plan_name, plan_chip, need, major, minor,
                    shared_optin, advice))
