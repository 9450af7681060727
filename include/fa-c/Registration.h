/*===-- fa-c/Registration.h - Register fa-mlir from C -------------*- C -*-===*\
|*                                                                            *|
|* The C counterparts of fa/InitFA.h. Each may be called more than once.     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FA_C_REGISTRATION_H
#define FA_C_REGISTRATION_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The `fa` dialect with its interface models, plus the upstream dialects,
/// extensions and LLVM IR translations the fa pipelines need (today: all
/// of them). Append the registry to a context with
/// mlirContextAppendDialectRegistry before running a pipeline.
MLIR_CAPI_EXPORTED void faRegisterAllDialects(MlirDialectRegistry registry);

/// The `fa-` passes, for mlirParsePassPipeline / mlirOpPassManagerAddPipeline.
MLIR_CAPI_EXPORTED void faRegisterPasses(void);

/// The fa pipelines: fa-to-ptx, fa-lower-to-cpu, fa-linalg-to-ptx,
/// fa-linalg-to-cpu (README lists their options).
MLIR_CAPI_EXPORTED void faRegisterAllPipelines(void);

/// Everything fa-opt has: the fa passes and pipelines and every upstream pass.
MLIR_CAPI_EXPORTED void faRegisterAllPassesAndPipelines(void);

#ifdef __cplusplus
}
#endif

#endif /* FA_C_REGISTRATION_H */
