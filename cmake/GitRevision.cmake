# Writes OUTPUT, a header defining FA_MLIR_GIT_REVISION as `git describe`
# of SOURCE_DIR now, only when it changed (so that an unchanged tree
# rebuilds nothing). Run at every build: cmake -DSOURCE_DIR=... -DOUTPUT=...
# -P GitRevision.cmake.
execute_process(
  COMMAND git -C "${SOURCE_DIR}" describe --always --dirty --abbrev=12
  OUTPUT_VARIABLE revision OUTPUT_STRIP_TRAILING_WHITESPACE
  ERROR_QUIET)
if(NOT revision)
  set(revision "unknown")
endif()
set(text "#define FA_MLIR_GIT_REVISION \"${revision}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE "${OUTPUT}" "${text}")
endif()
