/*===-- fa-c/Dialect.h - C API for the fa dialect -----------------*- C -*-===*\
|*                                                                            *|
|* The `fa` dialect from C, in MLIR's C API conventions (mlir-c/IR.h): a     *|
|* dialect handle, a builder for `fa.attention` and a few queries. Link the  *|
|* FAMLIR::FAMLIR-C library (README: "Using fa-mlir from another project"),   *|
|* which also carries the upstream mlir-c functions these need.              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FA_C_DIALECT_H
#define FA_C_DIALECT_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// mlirGetDialectHandle__fa__(): the `fa` dialect alone (no interface
/// models; faRegisterAllDialects adds those and what the pipelines need).
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(FA, fa);

/// Creates an `fa.attention` op at `location`, not inserted anywhere (like
/// mlirOperationCreate; insert it with mlirBlockInsertOwnedOperation... and
/// check it with mlirOperationVerify). Loads the `fa` dialect into the
/// location's context if it is not loaded yet.
///
///   query, key, value  Q [B, Hq, Nq, D], K [B, Hkv, Nk, D], V [B, Hkv, Nk, Dv]
///                      (all tensors or all memrefs).
///   out                the O destination.
///   lse                the optional LSE destination; a null value
///                      (`(MlirValue){NULL}`) for none.
///   scale              an f32 FloatAttr, or a null attribute for 1/sqrt(D).
///   causal             bottom-right aligned causal mask.
///   windowLeft/Right   i64 IntegerAttrs (-1: unbounded side), both or
///                      neither; null attributes for no window.
///   softcap            an f32 FloatAttr, or a null attribute for no cap.
///
/// In tensor form the op returns one result per destination (O, then LSE),
/// with the destinations' types; in memref form none.
/// Returns a null operation, after emitting an error at `location`, when an
/// argument is null that must not be, an attribute has the wrong kind or
/// only one window side is given. Shapes and element types are not checked
/// here but by mlirOperationVerify, which names the problem.
MLIR_CAPI_EXPORTED MlirOperation faAttentionOpCreate(
    MlirLocation location, MlirValue query, MlirValue key, MlirValue value,
    MlirValue out, MlirValue lse, MlirAttribute scale, bool causal,
    MlirAttribute windowLeft, MlirAttribute windowRight,
    MlirAttribute softcap);

/// True if `op` is an `fa.attention` op.
MLIR_CAPI_EXPORTED bool faOperationIsAttention(MlirOperation op);

/// The scale `fa.attention` applies: its `scale` attribute, or 1/sqrt(D).
/// NaN when `op` is null or not an `fa.attention` op.
MLIR_CAPI_EXPORTED double faAttentionOpGetEffectiveScale(MlirOperation op);

#ifdef __cplusplus
}
#endif

#endif /* FA_C_DIALECT_H */
