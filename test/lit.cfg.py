# -*- Python -*-
# lit configuration for fa-mlir.

import os
import shutil

import lit.formats
import lit.util
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "FA"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".py", ".c", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fa_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "README.md", "lit.cfg.py", "fa_fuzz.py",
                   "lit.site.cfg.py", "lit_utils"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))

# A sanitizer build (-DFA_ENABLE_SANITIZERS=ON): any report kills the process
# with SIGABRT, which `not` counts as a crash, so a test that expects a
# diagnostic still fails when the sanitizer fires after it.
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its free slab space
# in code inlined into our instrumented objects, while libMLIR.so (not
# instrumented) allocates from the same slabs without unpoisoning, so
# MLIR's attribute uniquer would report use-after-poison on every dense
# constant. Real heap errors (ASan's own redzones) are still reported.
if config.fa_sanitizers:
    config.available_features.add("sanitizers")
    config.environment["ASAN_OPTIONS"] = "abort_on_error=1:detect_leaks=1:allow_user_poisoning=0"
    config.environment["UBSAN_OPTIONS"] = "abort_on_error=1:halt_on_error=1:print_stacktrace=1"

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# Tools: ours first, then LLVM's (FileCheck, not, mlir-runner).
llvm_config.with_environment("PATH", config.fa_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tools = ["fa-opt", "fa-capi-test", "mlir-runner", "mlir-opt"]
llvm_config.add_tool_substitutions(tools, [config.fa_tools_dir, config.llvm_tools_dir])

# Runtime libraries for mlir-runner (printMemrefF32 & co).
runner_libs = ",".join(
    os.path.join(config.llvm_lib_dir, lib + ".so")
    for lib in ["libmlir_runner_utils", "libmlir_c_runner_utils"]
)
config.substitutions.append(("%mlir_runner_libs", runner_libs))
config.substitutions.append(("%python", config.python_executable))
# test/Examples/downstream.test: install this build and build
# examples/downstream against the installed package.
config.substitutions.append(("%fa_obj_root", config.fa_obj_root))
config.substitutions.append(("%fa_src_root", config.fa_src_root))
config.substitutions.append(("%mlir_cmake_dir", config.mlir_cmake_dir))
config.substitutions.append(("%cmake_generator", config.cmake_generator))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%lit_utils", os.path.join(config.test_source_root, "lit_utils")))

# ptxas is optional: tests that assemble PTX say `REQUIRES: ptxas`.
ptxas = shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None
)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
