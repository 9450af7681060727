"""fa_mlir.chips: the chip the runtime compiles for on a GPU, and the check
that a launch plan fits the GPU it is loaded on (pure Python)."""
import pytest

from fa_mlir import chips
from fa_mlir.chips import UnsupportedDeviceError


@pytest.mark.parametrize("capability, chip", [
    ((8, 0), "sm_80"), ((8, 6), "sm_86"), ((8, 7), "sm_87"), ((8, 9), "sm_89"),
    # An H100/H200 gets its architecture-specific chip (the #fa.wgmma atom).
    ((9, 0), "sm_90a"), ((10, 0), "sm_100"), ((12, 0), "sm_120"),
    # Unknown capabilities get the newest known chip below them.
    ((8, 8), "sm_87"), ((10, 1), "sm_100"), ((11, 0), "sm_103"), ((13, 0), "sm_121"),
])
def test_chip_for_capability(capability, chip):
    assert chips.chip_for_capability(*capability) == chip


@pytest.mark.parametrize("capability", [(7, 5), (7, 0), (6, 1)])
def test_pre_ampere_gpus_are_refused_by_name(capability):
    with pytest.raises(UnsupportedDeviceError, match=r"compute capability 8\.0 or newer.*"
                       r"this one is %d\.%d" % capability):
        chips.chip_for_capability(*capability)


def test_arch_specific_ptx_runs_on_its_own_chip_only():
    assert chips.can_run("sm_90a", 9, 0)
    assert not chips.can_run("sm_90a", 10, 0)
    assert chips.can_run("sm_80", 9, 0) and chips.can_run("sm_80", 12, 1)
    assert not chips.can_run("sm_90", 8, 9)


@pytest.mark.parametrize("name", ["sm80", "sm_", "sm_8", "sm_x0", "compute_80", "", None])
def test_bad_chip_names_raise(name):
    with pytest.raises(ValueError, match="not a chip name"):
        chips.parse_chip(name)


def test_portable_chip_for_an_arch_specific_gpu():
    assert chips.portable_chip_for_capability(9, 0) == "sm_90"
    assert chips.portable_chip_for_capability(9, 5) == "sm_90"


def test_fallback_is_the_portable_chip_where_it_runs():
    # sm_90a: sm_90's #fa.mma_sync kernels, then sm_80's.
    assert chips.fallback_chips("sm_90a") == ["sm_90", "sm_80"]
    assert chips.fallback_chips("sm_90") == ["sm_80"]
    assert chips.fallback_chips("sm_120a") == ["sm_120", "sm_80"]
    assert chips.fallback_chips("sm_86") == ["sm_80"]
    assert chips.fallback_chips("sm_80") == []


def kernel(shared):
    return {"name": "k", "dynamic_shared_memory": shared}


def test_plan_that_fits_passes():
    chips.check_plan_fits("p", "sm_80", [kernel(104448)], 9, 0, 232448)
    chips.check_plan_fits("p", "sm_80", [kernel(104448)], 8, 0, None)


def test_plan_for_a_newer_chip_names_the_chip_to_compile_for():
    with pytest.raises(UnsupportedDeviceError,
                       match=r"plan p is compiled for sm_90 and cannot run on this GPU "
                             r"\(compute capability 8\.6\): compile for sm_86"):
        chips.check_plan_fits("p", "sm_90", [kernel(1024)], 8, 6, 101376)


def test_plan_for_another_arch_specific_chip_is_refused():
    # sm_90a PTX on a Blackwell GPU (10.0): compile for its own chip.
    with pytest.raises(UnsupportedDeviceError,
                       match=r"plan p is compiled for sm_90a and cannot run on this GPU "
                             r"\(compute capability 10\.0\): compile for sm_100"):
        chips.check_plan_fits("p", "sm_90a", [kernel(1024)], 10, 0, 232448)


def test_plan_with_too_much_shared_memory_names_both_sizes():
    # An sm_80 d = 192 kernel (153600 bytes) on an RTX 3090 (sm_86, 99 KB).
    with pytest.raises(UnsupportedDeviceError,
                       match=r"needs 153600 bytes of shared memory a thread block; this GPU "
                             r"\(compute capability 8\.6\) gives at most 101376: compile for "
                             r"sm_86"):
        chips.check_plan_fits("p", "sm_80", [kernel(1024), kernel(153600)], 8, 6, 101376)


def test_known_chips_are_the_compilers():
    """KNOWN_CHIPS is the compiler's list (Chips.cpp) without the `a` chips."""
    compiler = pytest.importorskip("fa_mlir.compiler")
    from fa_mlir.errors import CompileError, CompilerUnavailableError
    try:
        compiler.compile("module {}", pipeline="fa-to-ptx{chip=sm_1}")
    except CompilerUnavailableError:
        pytest.skip("no native compiler module")
    except CompileError as e:
        import re
        listed = re.search(r"must be one of (.*), got 'sm_1'", str(e)).group(1)
        names = [n.strip() for n in listed.split(",")]
        assert tuple(n for n in names if not n.endswith("a")) == chips.KNOWN_CHIPS
    else:
        pytest.fail("chip=sm_1 was accepted")
