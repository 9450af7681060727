# `cmake --install <build> --prefix P` installs fa-mlir for other projects:
#   P/include/fa/...        C++ headers, .td files and generated .h.inc
#   P/include/fa-c/...      C API headers
#   P/lib/libFA*.a          the C++ libraries (static, position independent)
#   P/lib/libFAMLIR-C.so    the C API
#   P/bin/fa-opt
#   P/lib/cmake/famlir/     FAMLIRConfig.cmake, FAMLIRConfigVersion.cmake,
#                           FAMLIRTargets*.cmake (export set FAMLIRTargets,
#                           namespace FAMLIR::)
# Everything belongs to the install component `famlir`; the Python module
# installs its own component (fa_mlir_python) only.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(FA_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/famlir")
set(FA_INSTALLED_LIBRARIES
  FADialect FASemantics FATransforms FAToGPU FAPipelines FARegistration)

# The one target a C++ user links.
add_library(FAMLIR INTERFACE)
target_link_libraries(FAMLIR INTERFACE FARegistration MLIR LLVM)
target_include_directories(FAMLIR INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

install(TARGETS FAMLIR ${FA_INSTALLED_LIBRARIES} FAMLIR-C
  EXPORT FAMLIRTargets
  COMPONENT famlir
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS fa-opt
  EXPORT FAMLIRTargets
  COMPONENT famlir
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(DIRECTORY include/fa include/fa-c
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT famlir
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td"
  PATTERN "CMakeLists.txt" EXCLUDE)
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/fa
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT famlir
  FILES_MATCHING PATTERN "*.h.inc"
  PATTERN "CMakeFiles" EXCLUDE)

install(EXPORT FAMLIRTargets
  NAMESPACE FAMLIR::
  DESTINATION ${FA_INSTALL_CMAKEDIR}
  COMPONENT famlir)

set(FA_CONFIG_MLIR_DIR "${MLIR_DIR}")
string(REGEX MATCH "^[0-9]+\\.[0-9]+" FA_MLIR_VERSION_MAJOR_MINOR
       "${LLVM_PACKAGE_VERSION}")
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/FAMLIRConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/famlir/FAMLIRConfig.cmake
  INSTALL_DESTINATION ${FA_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/famlir/FAMLIRConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/famlir/FAMLIRConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/famlir/FAMLIRConfigVersion.cmake
  DESTINATION ${FA_INSTALL_CMAKEDIR}
  COMPONENT famlir)
