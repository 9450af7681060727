/* attention-capi.c - fa.attention from C, through fa-mlir's C API.
 *
 *   attention-capi [PIPELINE]
 *
 * Builds a function around one causal fa.attention (GQA 8:2, head dim 64,
 * f16) with the C API, verifies and prints it, runs PIPELINE on it (default
 * "builtin.module(fa-lower-to-cpu)"; e.g. "builtin.module(fa-to-ptx{chip=sm_90})"
 * compiles the kernel to PTX) and prints the result. Exits with 1 on any
 * failure, after the diagnostics. */

#include "fa-c/Dialect.h"
#include "fa-c/Registration.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>

static void print(MlirStringRef text, void *userData) {
  fwrite(text.data, 1, text.length, (FILE *)userData);
}

/* The function's arguments and return come from text; its body from C. */
static const char *kSkeleton =
    "func.func @attention(%q: tensor<2x8x256x64xf16>,\n"
    "                     %k: tensor<2x2x256x64xf16>,\n"
    "                     %v: tensor<2x2x256x64xf16>,\n"
    "                     %o: tensor<2x8x256x64xf16>) -> tensor<2x8x256x64xf16> {\n"
    "  return %o : tensor<2x8x256x64xf16>\n"
    "}\n";

int main(int argc, char **argv) {
  const char *pipeline =
      argc > 1 ? argv[1] : "builtin.module(fa-lower-to-cpu)";

  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  faRegisterAllDialects(registry);
  MlirContext context = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  faRegisterPasses();
  faRegisterAllPipelines();

  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kSkeleton));
  if (mlirModuleIsNull(module))
    return 1;
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  MlirOperation ret = mlirBlockGetTerminator(body);

  MlirValue noLse = {NULL};
  MlirAttribute defaultScale = {NULL}, noWindow = {NULL}, noSoftcap = {NULL};
  MlirOperation attention = faAttentionOpCreate(
      mlirLocationUnknownGet(context), mlirBlockGetArgument(body, 0),
      mlirBlockGetArgument(body, 1), mlirBlockGetArgument(body, 2),
      mlirBlockGetArgument(body, 3), noLse, defaultScale, /*causal=*/true,
      noWindow, noWindow, noSoftcap);
  if (mlirOperationIsNull(attention))
    return 1;
  mlirBlockInsertOwnedOperationBefore(body, ret, attention);
  mlirOperationSetOperand(ret, 0, mlirOperationGetResult(attention, 0));

  MlirOperation moduleOp = mlirModuleGetOperation(module);
  if (!mlirOperationVerify(moduleOp))
    return 1;
  mlirOperationPrint(moduleOp, print, stdout);
  printf("\n");

  MlirPassManager pm = mlirPassManagerCreate(context);
  MlirLogicalResult result = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString(pipeline), print, stderr);
  if (mlirLogicalResultIsSuccess(result))
    result = mlirPassManagerRunOnOp(pm, moduleOp);
  printf("// %s: %s\n", pipeline,
         mlirLogicalResultIsSuccess(result) ? "success" : "failure");
  if (mlirLogicalResultIsSuccess(result)) {
    mlirOperationPrint(moduleOp, print, stdout);
    printf("\n");
  }

  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
  return mlirLogicalResultIsSuccess(result) ? 0 : 1;
}
