/*===- fa-capi-test.c - Tests of the fa C API (include/fa-c) --------------===*\
|*                                                                            *|
|* Built as bin/fa-capi-test against libFAMLIR-C.so; each section prints what *|
|* it did and FileCheck checks it.                                           *|
\*===----------------------------------------------------------------------===*/

// RUN: fa-capi-test 2>&1 | FileCheck %s

#include "fa-c/Dialect.h"
#include "fa-c/Registration.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

/* Diagnostics go to stdout, in order with the rest. */
static MlirLogicalResult printDiagnostic(MlirDiagnostic diagnostic,
                                         void *userData) {
  (void)userData;
  printf("diagnostic: ");
  mlirDiagnosticPrint(diagnostic, printToStdout, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

static MlirContext createContext(void) {
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  faRegisterAllDialects(registry);
  MlirContext context =
      mlirContextCreateWithRegistry(registry, /*threadingEnabled=*/false);
  mlirDialectRegistryDestroy(registry);
  mlirContextAttachDiagnosticHandler(context, printDiagnostic, NULL, NULL);
  return context;
}

static MlirModule parse(MlirContext context, const char *source) {
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(source));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "could not parse the test input\n");
    exit(1);
  }
  return module;
}

/* The entry block of the first function in `module`. */
static MlirBlock firstFunctionBody(MlirModule module) {
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  return mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
}

static MlirAttribute f32Attr(MlirContext context, double value) {
  return mlirFloatAttrDoubleGet(context, mlirF32TypeGet(context), value);
}

static MlirAttribute i64Attr(MlirContext context, int64_t value) {
  return mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), value);
}

static const MlirAttribute noAttr = {NULL};
static const MlirValue noValue = {NULL};

/* The pass registry reports a pipeline error in several pieces: one line,
   after a prefix. `userData` points to the number of pieces so far. */
static void printPipelineError(MlirStringRef message, void *userData) {
  int *pieces = (int *)userData;
  if ((*pieces)++ == 0)
    printf("pipeline error: ");
  fwrite(message.data, 1, message.length, stdout);
}

/* Parses `pipeline`, runs it on `module` and prints whether it succeeded. */
static int runPipeline(MlirContext context, MlirModule module,
                       const char *pipeline) {
  MlirPassManager pm = mlirPassManagerCreate(context);
  int errorPieces = 0;
  MlirLogicalResult parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString(pipeline), printPipelineError,
      &errorPieces);
  if (errorPieces)
    printf("\n");
  int ok = 0;
  if (mlirLogicalResultIsSuccess(parsed))
    ok = mlirLogicalResultIsSuccess(
        mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module)));
  mlirPassManagerDestroy(pm);
  printf("%s: %s\n", pipeline, ok ? "success" : "failure");
  return ok;
}

static const char *kTensorFunc =
    "func.func @attn(%q: tensor<1x4x128x64xf16>, %k: tensor<1x2x128x64xf16>,\n"
    "                %v: tensor<1x2x128x64xf16>, %o: tensor<1x4x128x64xf16>,\n"
    "                %lse: tensor<1x4x128xf32>)\n"
    "    -> (tensor<1x4x128x64xf16>, tensor<1x4x128xf32>) {\n"
    "  return %o, %lse : tensor<1x4x128x64xf16>, tensor<1x4x128xf32>\n"
    "}\n";

/* Replaces the destinations that @attn returns by the results of a new
   fa.attention with the given attributes. */
static MlirOperation buildTensorAttention(MlirContext context,
                                          MlirModule module,
                                          MlirAttribute scale, bool causal,
                                          MlirAttribute left,
                                          MlirAttribute right,
                                          MlirAttribute softcap) {
  MlirBlock body = firstFunctionBody(module);
  MlirOperation ret = mlirBlockGetTerminator(body);
  MlirOperation attention = faAttentionOpCreate(
      mlirLocationUnknownGet(context), mlirBlockGetArgument(body, 0),
      mlirBlockGetArgument(body, 1), mlirBlockGetArgument(body, 2),
      mlirBlockGetArgument(body, 3), mlirBlockGetArgument(body, 4), scale,
      causal, left, right, softcap);
  if (mlirOperationIsNull(attention))
    return attention;
  mlirBlockInsertOwnedOperationBefore(body, ret, attention);
  mlirOperationSetOperand(ret, 0, mlirOperationGetResult(attention, 0));
  mlirOperationSetOperand(ret, 1, mlirOperationGetResult(attention, 1));
  return attention;
}

static void testDialectHandle(void) {
  printf("@dialect_handle\n");
  MlirContext context = mlirContextCreate();
  MlirDialectHandle fa = mlirGetDialectHandle__fa__();
  MlirStringRef name = mlirDialectHandleGetNamespace(fa);
  printf("namespace: %.*s\n", (int)name.length, name.data);
  MlirDialect dialect = mlirDialectHandleLoadDialect(fa, context);
  printf("loaded: %d\n", !mlirDialectIsNull(dialect));
  mlirContextDestroy(context);
  // CHECK-LABEL: @dialect_handle
  // CHECK: namespace: fa
  // CHECK: loaded: 1
}

static void testTensorAttention(void) {
  printf("@tensor_attention\n");
  MlirContext context = createContext();
  MlirModule module = parse(context, kTensorFunc);
  MlirOperation attention = buildTensorAttention(
      context, module, f32Attr(context, 0.125), /*causal=*/true,
      i64Attr(context, 32), i64Attr(context, 0), f32Attr(context, 30.0));
  printf("is attention: %d\n", faOperationIsAttention(attention));
  printf("effective scale: %g\n", faAttentionOpGetEffectiveScale(attention));
  printf("results: %d\n", (int)mlirOperationGetNumResults(attention));
  MlirOperation ret = mlirOperationGetNextInBlock(attention);
  printf("return is attention: %d\n", faOperationIsAttention(ret));
  printf("return's scale: %g\n", faAttentionOpGetEffectiveScale(ret));
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  printf("verified: %d\n",
         mlirOperationVerify(moduleOp));
  mlirOperationPrint(moduleOp, printToStdout, NULL);
  printf("\n");
  // CHECK-LABEL: @tensor_attention
  // CHECK: is attention: 1
  // CHECK: effective scale: 0.125
  // CHECK: results: 2
  // CHECK: return is attention: 0
  // CHECK: return's scale: nan
  // CHECK: verified: 1
  // CHECK: func.func @attn(%[[Q:.*]]: tensor<1x4x128x64xf16>, %[[K:.*]]: tensor<1x2x128x64xf16>, %[[V:.*]]: tensor<1x2x128x64xf16>, %[[O:.*]]: tensor<1x4x128x64xf16>, %[[LSE:.*]]: tensor<1x4x128xf32>)
  // CHECK: %[[R:.*]]:2 = fa.attention ins(%[[Q]], %[[K]], %[[V]] : {{.*}}) outs(%[[O]], %[[LSE]] : tensor<1x4x128x64xf16>, tensor<1x4x128xf32>) scale(1.250000e-01) causal window(32, 0) softcap(3.000000e+01) -> tensor<1x4x128x64xf16>, tensor<1x4x128xf32>
  // CHECK: return %[[R]]#0, %[[R]]#1

  /* The same module through the CPU pipeline, from a textual pipeline. */
  faRegisterAllPipelines();
  faRegisterAllPipelines(); /* a second registration is harmless */
  runPipeline(context, module, "builtin.module(fa-lower-to-cpu)");
  mlirOperationPrint(moduleOp, printToStdout, NULL);
  printf("\n");
  // CHECK: builtin.module(fa-lower-to-cpu): success
  // CHECK: llvm.func @attn(
  // CHECK-NOT: fa.attention
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
}

static void testMemrefAttentionDefaults(void) {
  printf("@memref_attention_defaults\n");
  MlirContext context = createContext();
  MlirModule module = parse(
      context,
      "func.func @attn(%q: memref<2x8x64x16xf32>, %k: memref<2x8x64x16xf32>,\n"
      "                %v: memref<2x8x64x16xf32>, %o: memref<2x8x64x16xf32>) {\n"
      "  return\n"
      "}\n");
  MlirBlock body = firstFunctionBody(module);
  MlirOperation attention = faAttentionOpCreate(
      mlirLocationUnknownGet(context), mlirBlockGetArgument(body, 0),
      mlirBlockGetArgument(body, 1), mlirBlockGetArgument(body, 2),
      mlirBlockGetArgument(body, 3), noValue, noAttr, /*causal=*/false,
      noAttr, noAttr, noAttr);
  mlirBlockInsertOwnedOperationBefore(body, mlirBlockGetTerminator(body),
                                      attention);
  printf("results: %d\n", (int)mlirOperationGetNumResults(attention));
  printf("effective scale: %g\n", faAttentionOpGetEffectiveScale(attention));
  printf("verified: %d\n", (int)(mlirOperationVerify(
                               mlirModuleGetOperation(module))));
  mlirOperationPrint(attention, printToStdout, NULL);
  printf("\n");
  // CHECK-LABEL: @memref_attention_defaults
  // CHECK: results: 0
  // CHECK: effective scale: 0.25
  // CHECK: verified: 1
  // CHECK: fa.attention ins({{.*}} : memref<2x8x64x16xf32>, memref<2x8x64x16xf32>, memref<2x8x64x16xf32>) outs(%{{.*}} : memref<2x8x64x16xf32>){{$}}
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
}

static void testBadArguments(void) {
  printf("@bad_arguments\n");
  MlirContext context = createContext();
  MlirModule module = parse(context, kTensorFunc);
  MlirOperation op = buildTensorAttention(context, module,
                                          i64Attr(context, 1), false, noAttr,
                                          noAttr, noAttr);
  printf("null: %d\n", mlirOperationIsNull(op));
  // CHECK-LABEL: @bad_arguments
  // CHECK: diagnostic: faAttentionOpCreate: scale must be an f32 FloatAttr (or null), got 1 : i64
  // CHECK: null: 1
  op = buildTensorAttention(context, module, noAttr, false,
                            i64Attr(context, 4), noAttr, noAttr);
  printf("null: %d\n", mlirOperationIsNull(op));
  // CHECK: diagnostic: faAttentionOpCreate: windowLeft and windowRight must both be given or both be null
  // CHECK: null: 1
  op = buildTensorAttention(context, module, noAttr, false, f32Attr(context, 4),
                            f32Attr(context, 0), noAttr);
  printf("null: %d\n", mlirOperationIsNull(op));
  // CHECK: diagnostic: faAttentionOpCreate: windowLeft must be an i64 IntegerAttr (or null), got 4.000000e+00 : f32
  // CHECK: null: 1
  op = buildTensorAttention(context, module, noAttr, false, noAttr, noAttr,
                            i64Attr(context, 30));
  printf("null: %d\n", mlirOperationIsNull(op));
  // CHECK: diagnostic: faAttentionOpCreate: softcap must be an f32 FloatAttr (or null), got 30 : i64
  // CHECK: null: 1
  op = faAttentionOpCreate(mlirLocationUnknownGet(context), noValue, noValue,
                           noValue, noValue, noValue, noAttr, false, noAttr,
                           noAttr, noAttr);
  printf("null: %d\n", mlirOperationIsNull(op));
  // CHECK: diagnostic: faAttentionOpCreate: query, key, value and out must not be null
  // CHECK: null: 1

  /* Shapes are the verifier's business: K with another head dim. */
  MlirModule bad = parse(
      context,
      "func.func @attn(%q: tensor<1x4x128x64xf16>, %k: tensor<1x2x128x32xf16>,\n"
      "                %v: tensor<1x2x128x64xf16>, %o: tensor<1x4x128x64xf16>,\n"
      "                %lse: tensor<1x4x128xf32>)\n"
      "    -> (tensor<1x4x128x64xf16>, tensor<1x4x128xf32>) {\n"
      "  return %o, %lse : tensor<1x4x128x64xf16>, tensor<1x4x128xf32>\n"
      "}\n");
  op = buildTensorAttention(context, bad, noAttr, false, noAttr, noAttr,
                            noAttr);
  printf("built: %d\n", !mlirOperationIsNull(op));
  printf("verified: %d\n", (int)(mlirOperationVerify(
                               mlirModuleGetOperation(bad))));
  // CHECK: built: 1
  // CHECK: diagnostic: 'fa.attention' op
  // CHECK-SAME: 64
  // CHECK-SAME: 32
  // CHECK: verified: 0
  mlirModuleDestroy(bad);
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
}

static void testPipelineOptionError(void) {
  printf("@pipeline_option_error\n");
  MlirContext context = createContext();
  MlirModule module = parse(context, kTensorFunc);
  faRegisterAllPipelines();
  runPipeline(context, module, "builtin.module(fa-to-ptx{chip=sm_10})");
  // CHECK-LABEL: @pipeline_option_error
  // CHECK: pipeline error: {{.*}}fa-to-ptx: option chip must be one of
  // CHECK-SAME: got 'sm_10'
  // CHECK: builtin.module(fa-to-ptx{chip=sm_10}): failure
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
}

/* Prints the lines of the PTX of every gpu.binary in `module` that contain
   one of `needles`, after the binary's name. */
static void printPTXLines(MlirModule module, const char *const *needles) {
  MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  for (; !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
    if (name.length != 10 || strncmp(name.data, "gpu.binary", 10) != 0)
      continue;
    MlirAttribute symbol = mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString("sym_name"));
    MlirStringRef symbolName = mlirStringAttrGetValue(symbol);
    printf("binary %.*s\n", (int)symbolName.length, symbolName.data);
    MlirAttribute objects = mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString("objects"));
    MlirAttribute object = mlirArrayAttrGetElement(objects, 0);
    if (!mlirAttributeIsAGPUObjectAttr(object))
      continue;
    MlirStringRef ptx = mlirGPUObjectAttrGetObject(object);
    const char *line = ptx.data, *end = ptx.data + ptx.length;
    while (line < end) {
      const char *next = memchr(line, '\n', (size_t)(end - line));
      size_t length = next ? (size_t)(next - line) : (size_t)(end - line);
      for (const char *const *needle = needles; *needle; ++needle) {
        size_t needleLength = strlen(*needle);
        for (size_t i = 0; i + needleLength <= length; ++i)
          if (memcmp(line + i, *needle, needleLength) == 0) {
            printf("  %.*s\n", (int)length, line);
            goto nextLine;
          }
      }
    nextLine:
      line += length + 1;
    }
  }
}

/* A host kernel in the NVVM dialect that swaps neighbours through shared
   memory: its shared addresses show the NVPTX pointer width in force. */
static const char *kHostKernel =
    "gpu.module @host_kernels [#nvvm.target<chip = \"sm_80\">] {\n"
    "  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = "
    "16 : i64} : !llvm.array<256 x f32>\n"
    "  llvm.func @swap(%out: !llvm.ptr<1>) attributes {gpu.kernel, "
    "nvvm.kernel} {\n"
    "    %tid = nvvm.read.ptx.sreg.tid.x : i32\n"
    "    %base = llvm.mlir.addressof @tile : !llvm.ptr<3>\n"
    "    %q = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> "
    "!llvm.ptr<1>, f32\n"
    "    %in = llvm.load %q : !llvm.ptr<1> -> f32\n"
    "    %p = llvm.getelementptr %base[0, %tid] : (!llvm.ptr<3>, i32) -> "
    "!llvm.ptr<3>, !llvm.array<256 x f32>\n"
    "    llvm.store %in, %p : f32, !llvm.ptr<3>\n"
    "    nvvm.barrier0\n"
    "    %c1 = llvm.mlir.constant(1 : i32) : i32\n"
    "    %other = llvm.xor %tid, %c1 : i32\n"
    "    %r = llvm.getelementptr %base[0, %other] : (!llvm.ptr<3>, i32) -> "
    "!llvm.ptr<3>, !llvm.array<256 x f32>\n"
    "    %x = llvm.load %r : !llvm.ptr<3> -> f32\n"
    "    llvm.store %x, %q : f32, !llvm.ptr<1>\n"
    "    llvm.return\n"
    "  }\n"
    "}\n";

/* fa-to-ptx from C, then a host's own NVPTX compilation in the same
   process: ours has 32-bit shared addresses, the host's LLVM's default
   64-bit ones (the option was restored), before and after ours. */
static void testPTXAndHostCompilation(void) {
  printf("@ptx_and_host_compilation\n");
  static const char *const needles[] = {".target", "__dynamic_shmem__0;",
                                        ", tile;", NULL};
  MlirContext context = createContext();
  faRegisterAllPassesAndPipelines();

  MlirModule before = parse(context, kHostKernel);
  runPipeline(context, before, "builtin.module(gpu-module-to-binary{format=isa})");
  printPTXLines(before, needles);
  // CHECK-LABEL: @ptx_and_host_compilation
  // CHECK: builtin.module(gpu-module-to-binary{format=isa}): success
  // CHECK-NEXT: binary host_kernels
  // CHECK-NEXT: .target sm_80
  // CHECK-NEXT: mov.b64 {{.*}}%rd{{[0-9]+}}, tile;

  MlirModule module = parse(context, kTensorFunc);
  buildTensorAttention(context, module, noAttr, /*causal=*/true, noAttr,
                       noAttr, noAttr);
  runPipeline(context, module, "builtin.module(fa-to-ptx{chip=sm_90})");
  printPTXLines(module, needles);
  // CHECK: builtin.module(fa-to-ptx{chip=sm_90}): success
  // CHECK-NEXT: binary attn_kernel_module
  // CHECK-NEXT: .target sm_90
  // CHECK-NEXT: mov.b32 {{.*}}%r{{[0-9]+}}, __dynamic_shmem__0;

  MlirModule after = parse(context, kHostKernel);
  runPipeline(context, after, "builtin.module(gpu-module-to-binary{format=isa})");
  printPTXLines(after, needles);
  // CHECK: builtin.module(gpu-module-to-binary{format=isa}): success
  // CHECK-NEXT: binary host_kernels
  // CHECK-NEXT: .target sm_80
  // CHECK-NEXT: mov.b64 {{.*}}%rd{{[0-9]+}}, tile;

  mlirModuleDestroy(after);
  mlirModuleDestroy(module);
  mlirModuleDestroy(before);
  mlirContextDestroy(context);
}

int main(void) {
  testDialectHandle();
  testTensorAttention();
  testMemrefAttentionDefaults();
  testBadArguments();
  testPipelineOptionError();
  testPTXAndHostCompilation();
  return 0;
}
