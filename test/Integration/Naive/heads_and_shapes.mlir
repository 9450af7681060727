// Naive lowering on the CPU: GQA/MQA head sharing, bottom-right causal
// alignment when Nq != Nk, rows that see no key, f16/bf16 and dynamic shapes.
// Inputs lie on a 1/4 grid in [-1, 1] (exact in f16 and bf16). Expected values
// come from test/lit_utils/attention_reference.py (pure Python, double
// precision) on the same inputs; each RUN line states its tolerance
// (|actual - expected| <= atol + rtol * |expected|).
//
// GQA 4:2, causal with Nq < Nk: bottom-right aligned, row i sees keys j <= i + 2.
// RUN: fa-opt %s --fa-lower-to-cpu \
// RUN:   | mlir-runner -e gqa_causal_short_q -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | %python %lit_utils/compare_memrefs.py - --expected-in %s --tag EXPECTED-GQA-CAUSAL-SHORT-Q --atol 1e-05 --rtol 1e-05
//
// MQA 2:1, causal with Nq > Nk: rows 0 and 1 see no key, so O = 0 and LSE = -inf.
// RUN: fa-opt %s --fa-lower-to-cpu \
// RUN:   | mlir-runner -e mqa_causal_long_q -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | %python %lit_utils/compare_memrefs.py - --expected-in %s --tag EXPECTED-MQA-CAUSAL-LONG-Q --atol 1e-05 --rtol 1e-05
//
// f16 inputs and output, dynamic B and N; tolerance covers rounding O to f16.
// RUN: fa-opt %s --fa-lower-to-cpu \
// RUN:   | mlir-runner -e f16_dynamic_shapes -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | %python %lit_utils/compare_memrefs.py - --expected-in %s --tag EXPECTED-F16-DYNAMIC-SHAPES --atol 0.002 --rtol 0.002
//
// bf16, MQA 4:1, causal with Nq == Nk; tolerance covers rounding O to bf16.
// RUN: fa-opt %s --fa-lower-to-cpu \
// RUN:   | mlir-runner -e bf16_gqa_causal -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | %python %lit_utils/compare_memrefs.py - --expected-in %s --tag EXPECTED-BF16-GQA-CAUSAL --atol 0.01 --rtol 0.01

// @gqa_causal_short_q: O then LSE
// EXPECTED-GQA-CAUSAL-SHORT-Q: -0.5187884 -0.2992528 0.09622371 -0.4179749 -0.1906963 -0.06862194 0.0795193 0.04022634
// EXPECTED-GQA-CAUSAL-SHORT-Q: -0.188938 -0.4660276 -0.22474 -0.110191 -0.2896975 -0.3165168 0.01394116 -0.02329585
// EXPECTED-GQA-CAUSAL-SHORT-Q: 0.1075292 -0.2059992 0.2386717 0.2427751 -0.2572249 -0.2734148 0.1147099 -0.1308381
// EXPECTED-GQA-CAUSAL-SHORT-Q: -0.2182316 -0.02200959 -0.2032559 0.04210575 0.2450414 -0.2549586 -0.07241234 -0.1596619
// EXPECTED-GQA-CAUSAL-SHORT-Q: 0.08773247 -0.108681 -0.08687183 -0.2168537
// EXPECTED-GQA-CAUSAL-SHORT-Q: 1.17133 1.629376 1.710923 1.016547 1.371708 1.834157 0.964654 1.335823
// EXPECTED-GQA-CAUSAL-SHORT-Q: 1.673017 1.50717 1.289592 1.711383

// @mqa_causal_long_q: O then LSE
// EXPECTED-MQA-CAUSAL-LONG-Q: 0 0 0 0 0 0 0 0
// EXPECTED-MQA-CAUSAL-LONG-Q: -1 0.75 0.25 -0.25 -0.7227648 -0.2203233 0.5272352 0.02723523
// EXPECTED-MQA-CAUSAL-LONG-Q: -0.5054463 -0.2088672 -0.02751711 0.2445537 0 0 0 0
// EXPECTED-MQA-CAUSAL-LONG-Q: 0 0 0 0 -1 0.75 0.25 -0.25
// EXPECTED-MQA-CAUSAL-LONG-Q: -0.7733691 -0.04320823 0.4766309 -0.02336908 -0.5 -0.4008077 0.1508077 0.25
// EXPECTED-MQA-CAUSAL-LONG-Q: 0 0 0 0 0 0 0 0
// EXPECTED-MQA-CAUSAL-LONG-Q: -0.25 -0.75 1 0.5 0.007809958 -0.49219 0.09766515 0.75781
// EXPECTED-MQA-CAUSAL-LONG-Q: 0.239585 -0.260415 0.01314076 0.2628967 0 0 0 0
// EXPECTED-MQA-CAUSAL-LONG-Q: 0 0 0 0 -0.25 -0.75 1 0.5
// EXPECTED-MQA-CAUSAL-LONG-Q: -0.007809958 -0.50781 0.1523349 0.74219 0.2431536 -0.2568464 0.2445229 0.02259314
// EXPECTED-MQA-CAUSAL-LONG-Q: -inf -inf 0.125 0.8397417 1.538359 -inf -inf 0.5625
// EXPECTED-MQA-CAUSAL-LONG-Q: 0.5100353 1.135603 -inf -inf -0.84375 0.4436354 1.348938 -inf
// EXPECTED-MQA-CAUSAL-LONG-Q: -inf 0.1875 0.5686354 1.278312

// @f16_dynamic_shapes: O then LSE
// EXPECTED-F16-DYNAMIC-SHAPES: -0.125 0.05893925 0 -0.05893925 -0.3160608 0.06606075 0.25 0.1910608
// EXPECTED-F16-DYNAMIC-SHAPES: -0.1683247 0.008323489 0.04991411 -0.06129016 -0.2821824 -0.002881771 0.2999141 0.1887098
// EXPECTED-F16-DYNAMIC-SHAPES: -0.07693016 0.1021843 -0.0463773 -0.05682524 -0.3500351 0.1312212 0.2036227 0.1931748
// EXPECTED-F16-DYNAMIC-SHAPES: -0.125 0.05893925 0 -0.05893925 -0.3160608 0.06606075 0.25 0.1910608
// EXPECTED-F16-DYNAMIC-SHAPES: 0.08594653 -0.2028719 -0.2245373 -0.121657 0.3359465 0.04712809 0.02546266 -0.0737088
// EXPECTED-F16-DYNAMIC-SHAPES: 0.05584349 -0.1848648 -0.263251 -0.03758991 0.3058435 0.0651352 -0.01325104 -0.05267499
// EXPECTED-F16-DYNAMIC-SHAPES: 0.02478708 -0.1655404 -0.3040647 0.04900978 0.2747871 0.08445958 -0.0540647 -0.03928026
// EXPECTED-F16-DYNAMIC-SHAPES: 0.08594653 -0.2028719 -0.2245373 -0.121657 0.3359465 0.04712809 0.02546266 -0.0737088
// EXPECTED-F16-DYNAMIC-SHAPES: -0.2159692 -0.2781454 -0.04450265 0.3320003 0.03403077 -0.02814539 -0.005661936 0.1243933
// EXPECTED-F16-DYNAMIC-SHAPES: -0.1369023 -0.2052146 -0.09218966 0.2745604 0.1130977 0.04478537 -0.1520885 0.1293912
// EXPECTED-F16-DYNAMIC-SHAPES: -0.1780504 -0.2373804 -0.07469389 0.3068612 0.07194959 0.01261955 -0.08398882 0.125822
// EXPECTED-F16-DYNAMIC-SHAPES: -0.2159692 -0.2781454 -0.04450265 0.3320003 0.03403077 -0.02814539 -0.005661936 0.1243933
// EXPECTED-F16-DYNAMIC-SHAPES: -0.0440405 0.338081 0.0809595 0.02202025 -0.2351013 0.1470203 0.08808101 -0.1690405
// EXPECTED-F16-DYNAMIC-SHAPES: -0.0616766 0.3621698 0.118187 -0.04805726 -0.3084615 0.2555391 0.1121698 -0.131813
// EXPECTED-F16-DYNAMIC-SHAPES: -0.03749443 0.3169547 0.03855255 0.09911576 -0.1640985 0.04234697 0.06695467 -0.2114475
// EXPECTED-F16-DYNAMIC-SHAPES: -0.0440405 0.338081 0.0809595 0.02202025 -0.2351013 0.1470203 0.08808101 -0.1690405
// EXPECTED-F16-DYNAMIC-SHAPES: 1.828377 1.755631 1.922942 1.828377 1.879831 1.807178 1.762199 1.879831
// EXPECTED-F16-DYNAMIC-SHAPES: 1.835743 1.849857 1.829263 1.835743 1.828377 1.841985 1.853782 1.828377

// @bf16_gqa_causal: O then LSE
// EXPECTED-BF16-GQA-CAUSAL: -1 0.75 0.25 -0.25 -0.7170472 -0.2403347 0.5329528 0.03295277
// EXPECTED-BF16-GQA-CAUSAL: -0.4879148 -0.1944368 -0.08577617 0.2620852 -0.3449112 -0.2112278 -0.0775444 0.05613899
// EXPECTED-BF16-GQA-CAUSAL: -1 0.75 0.25 -0.25 -0.8121961 0.09268627 0.4378039 -0.06219608
// EXPECTED-BF16-GQA-CAUSAL: -0.5156679 -0.1822183 -0.02861201 0.2343321 -0.2343875 -0.06919081 -0.2622409 -0.06698711
// EXPECTED-BF16-GQA-CAUSAL: -1 0.75 0.25 -0.25 -0.6878039 -0.3426863 0.5621961 0.06219608
// EXPECTED-BF16-GQA-CAUSAL: -0.5052416 -0.4596397 0.2227438 0.2447584 -0.1976825 -0.2250493 -0.1223686 -0.1060583
// EXPECTED-BF16-GQA-CAUSAL: -1 0.75 0.25 -0.25 -0.7829528 -0.009665292 0.4670472 -0.03295277
// EXPECTED-BF16-GQA-CAUSAL: -0.5 -0.25 0 0.25 -0.3364342 -0.2611832 -0.01125944 0.02709397
// EXPECTED-BF16-GQA-CAUSAL: 0.1988738 0.9007844 1.373716 1.46601 0.2872621 0.6256563 1.015209 1.505865
// EXPECTED-BF16-GQA-CAUSAL: -0.2209709 0.6256563 0.93066 1.339395 0.06629126 0.9007844 1.297486 1.43017

func.func private @printMemrefF32(memref<*xf32>)

func.func @gqa_causal_short_q() {
  %q_f32 = arith.constant dense<[[[[-1.0, 0.25, -0.75, 0.5], [-0.25, 1.0, 0.0, -1.0], [0.5, -0.5, 0.75, -0.25]], [[0.75, -0.25, 1.0, 0.0], [-0.75, 0.5, -0.5, 0.75], [0.0, -1.0, 0.25, -0.75]], [[0.25, -0.75, 0.5, -0.5], [1.0, 0.0, -1.0, 0.25], [-0.5, 0.75, -0.25, 1.0]], [[-0.25, 1.0, 0.0, -1.0], [0.5, -0.5, 0.75, -0.25], [-1.0, 0.25, -0.75, 0.5]]]]> : tensor<1x4x3x4xf32>
  %q = tensor.cast %q_f32 : tensor<1x4x3x4xf32> to tensor<1x4x3x4xf32>
  %k_f32 = arith.constant dense<[[[[-1.0, -0.25, 0.5, -1.0], [0.25, 1.0, -0.5, 0.25], [-0.75, 0.0, 0.75, -0.75], [0.5, -1.0, -0.25, 0.5], [-0.5, 0.25, 1.0, -0.5]], [[0.0, 0.75, -0.75, 0.0], [-1.0, -0.25, 0.5, -1.0], [0.25, 1.0, -0.5, 0.25], [-0.75, 0.0, 0.75, -0.75], [0.5, -1.0, -0.25, 0.5]]]]> : tensor<1x2x5x4xf32>
  %k = tensor.cast %k_f32 : tensor<1x2x5x4xf32> to tensor<1x2x5x4xf32>
  %v_f32 = arith.constant dense<[[[[-1.0, 0.75, 0.25], [-0.5, -1.0, 0.75], [0.0, -0.5, -1.0], [0.5, 0.0, -0.5], [1.0, 0.5, 0.0]], [[0.25, -0.25, -0.75], [0.75, 0.25, -0.25], [-1.0, 0.75, 0.25], [-0.5, -1.0, 0.75], [0.0, -0.5, -1.0]]]]> : tensor<1x2x5x3xf32>
  %v = tensor.cast %v_f32 : tensor<1x2x5x3xf32> to tensor<1x2x5x3xf32>
  %o_init = tensor.empty() : tensor<1x4x3x3xf32>
  %lse_init = tensor.empty() : tensor<1x4x3xf32>
  %o, %lse = fa.attention ins(%q, %k, %v : tensor<1x4x3x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x3xf32>)
                          outs(%o_init, %lse_init : tensor<1x4x3x3xf32>, tensor<1x4x3xf32>) causal
                          -> tensor<1x4x3x3xf32>, tensor<1x4x3xf32>
  %o_buf = bufferization.to_buffer %o : tensor<1x4x3x3xf32> to memref<1x4x3x3xf32>
  %o_any = memref.cast %o_buf : memref<1x4x3x3xf32> to memref<*xf32>
  call @printMemrefF32(%o_any) : (memref<*xf32>) -> ()
  %lse_buf = bufferization.to_buffer %lse : tensor<1x4x3xf32> to memref<1x4x3xf32>
  %lse_any = memref.cast %lse_buf : memref<1x4x3xf32> to memref<*xf32>
  call @printMemrefF32(%lse_any) : (memref<*xf32>) -> ()
  return
}

func.func @mqa_causal_long_q() {
  %q_f32 = arith.constant dense<[[[[-1.0, 0.25, -0.75, 0.5], [-0.25, 1.0, 0.0, -1.0], [0.5, -0.5, 0.75, -0.25], [-1.0, 0.25, -0.75, 0.5], [-0.25, 1.0, 0.0, -1.0]], [[0.75, -0.25, 1.0, 0.0], [-0.75, 0.5, -0.5, 0.75], [0.0, -1.0, 0.25, -0.75], [0.75, -0.25, 1.0, 0.0], [-0.75, 0.5, -0.5, 0.75]]], [[[-0.5, 0.75, -0.25, 1.0], [0.25, -0.75, 0.5, -0.5], [1.0, 0.0, -1.0, 0.25], [-0.5, 0.75, -0.25, 1.0], [0.25, -0.75, 0.5, -0.5]], [[-1.0, 0.25, -0.75, 0.5], [-0.25, 1.0, 0.0, -1.0], [0.5, -0.5, 0.75, -0.25], [-1.0, 0.25, -0.75, 0.5], [-0.25, 1.0, 0.0, -1.0]]]]> : tensor<2x2x5x4xf32>
  %q = tensor.cast %q_f32 : tensor<2x2x5x4xf32> to tensor<2x2x5x4xf32>
  %k_f32 = arith.constant dense<[[[[-1.0, -0.25, 0.5, -1.0], [0.25, 1.0, -0.5, 0.25], [-0.75, 0.0, 0.75, -0.75]]], [[[-0.75, 0.0, 0.75, -0.75], [0.5, -1.0, -0.25, 0.5], [-0.5, 0.25, 1.0, -0.5]]]]> : tensor<2x1x3x4xf32>
  %k = tensor.cast %k_f32 : tensor<2x1x3x4xf32> to tensor<2x1x3x4xf32>
  %v_f32 = arith.constant dense<[[[[-1.0, 0.75, 0.25, -0.25], [-0.5, -1.0, 0.75, 0.25], [0.0, -0.5, -1.0, 0.75]]], [[[-0.25, -0.75, 1.0, 0.5], [0.25, -0.25, -0.75, 1.0], [0.75, 0.25, -0.25, -0.75]]]]> : tensor<2x1x3x4xf32>
  %v = tensor.cast %v_f32 : tensor<2x1x3x4xf32> to tensor<2x1x3x4xf32>
  %o_init = tensor.empty() : tensor<2x2x5x4xf32>
  %lse_init = tensor.empty() : tensor<2x2x5xf32>
  %o, %lse = fa.attention ins(%q, %k, %v : tensor<2x2x5x4xf32>, tensor<2x1x3x4xf32>, tensor<2x1x3x4xf32>)
                          outs(%o_init, %lse_init : tensor<2x2x5x4xf32>, tensor<2x2x5xf32>) scale(0.5) causal
                          -> tensor<2x2x5x4xf32>, tensor<2x2x5xf32>
  %o_buf = bufferization.to_buffer %o : tensor<2x2x5x4xf32> to memref<2x2x5x4xf32>
  %o_any = memref.cast %o_buf : memref<2x2x5x4xf32> to memref<*xf32>
  call @printMemrefF32(%o_any) : (memref<*xf32>) -> ()
  %lse_buf = bufferization.to_buffer %lse : tensor<2x2x5xf32> to memref<2x2x5xf32>
  %lse_any = memref.cast %lse_buf : memref<2x2x5xf32> to memref<*xf32>
  call @printMemrefF32(%lse_any) : (memref<*xf32>) -> ()
  return
}

func.func @f16_dynamic_shapes() {
  %q_f32 = arith.constant dense<[[[[-1.0, 0.25, -0.75, 0.5, -0.5, 0.75, -0.25, 1.0], [-0.25, 1.0, 0.0, -1.0, 0.25, -0.75, 0.5, -0.5], [0.5, -0.5, 0.75, -0.25, 1.0, 0.0, -1.0, 0.25], [-1.0, 0.25, -0.75, 0.5, -0.5, 0.75, -0.25, 1.0]], [[0.75, -0.25, 1.0, 0.0, -1.0, 0.25, -0.75, 0.5], [-0.75, 0.5, -0.5, 0.75, -0.25, 1.0, 0.0, -1.0], [0.0, -1.0, 0.25, -0.75, 0.5, -0.5, 0.75, -0.25], [0.75, -0.25, 1.0, 0.0, -1.0, 0.25, -0.75, 0.5]]], [[[-0.5, 0.75, -0.25, 1.0, 0.0, -1.0, 0.25, -0.75], [0.25, -0.75, 0.5, -0.5, 0.75, -0.25, 1.0, 0.0], [1.0, 0.0, -1.0, 0.25, -0.75, 0.5, -0.5, 0.75], [-0.5, 0.75, -0.25, 1.0, 0.0, -1.0, 0.25, -0.75]], [[-1.0, 0.25, -0.75, 0.5, -0.5, 0.75, -0.25, 1.0], [-0.25, 1.0, 0.0, -1.0, 0.25, -0.75, 0.5, -0.5], [0.5, -0.5, 0.75, -0.25, 1.0, 0.0, -1.0, 0.25], [-1.0, 0.25, -0.75, 0.5, -0.5, 0.75, -0.25, 1.0]]]]> : tensor<2x2x4x8xf32>
  %q_f16 = arith.truncf %q_f32 : tensor<2x2x4x8xf32> to tensor<2x2x4x8xf16>
  %q = tensor.cast %q_f16 : tensor<2x2x4x8xf16> to tensor<?x2x?x8xf16>
  %k_f32 = arith.constant dense<[[[[-1.0, -0.25, 0.5, -1.0, -0.25, 0.5, -1.0, -0.25], [0.25, 1.0, -0.5, 0.25, 1.0, -0.5, 0.25, 1.0], [-0.75, 0.0, 0.75, -0.75, 0.0, 0.75, -0.75, 0.0], [0.5, -1.0, -0.25, 0.5, -1.0, -0.25, 0.5, -1.0], [-0.5, 0.25, 1.0, -0.5, 0.25, 1.0, -0.5, 0.25], [0.75, -0.75, 0.0, 0.75, -0.75, 0.0, 0.75, -0.75]], [[0.0, 0.75, -0.75, 0.0, 0.75, -0.75, 0.0, 0.75], [-1.0, -0.25, 0.5, -1.0, -0.25, 0.5, -1.0, -0.25], [0.25, 1.0, -0.5, 0.25, 1.0, -0.5, 0.25, 1.0], [-0.75, 0.0, 0.75, -0.75, 0.0, 0.75, -0.75, 0.0], [0.5, -1.0, -0.25, 0.5, -1.0, -0.25, 0.5, -1.0], [-0.5, 0.25, 1.0, -0.5, 0.25, 1.0, -0.5, 0.25]]], [[[-0.75, 0.0, 0.75, -0.75, 0.0, 0.75, -0.75, 0.0], [0.5, -1.0, -0.25, 0.5, -1.0, -0.25, 0.5, -1.0], [-0.5, 0.25, 1.0, -0.5, 0.25, 1.0, -0.5, 0.25], [0.75, -0.75, 0.0, 0.75, -0.75, 0.0, 0.75, -0.75], [-0.25, 0.5, -1.0, -0.25, 0.5, -1.0, -0.25, 0.5], [1.0, -0.5, 0.25, 1.0, -0.5, 0.25, 1.0, -0.5]], [[0.25, 1.0, -0.5, 0.25, 1.0, -0.5, 0.25, 1.0], [-0.75, 0.0, 0.75, -0.75, 0.0, 0.75, -0.75, 0.0], [0.5, -1.0, -0.25, 0.5, -1.0, -0.25, 0.5, -1.0], [-0.5, 0.25, 1.0, -0.5, 0.25, 1.0, -0.5, 0.25], [0.75, -0.75, 0.0, 0.75, -0.75, 0.0, 0.75, -0.75], [-0.25, 0.5, -1.0, -0.25, 0.5, -1.0, -0.25, 0.5]]]]> : tensor<2x2x6x8xf32>
  %k_f16 = arith.truncf %k_f32 : tensor<2x2x6x8xf32> to tensor<2x2x6x8xf16>
  %k = tensor.cast %k_f16 : tensor<2x2x6x8xf16> to tensor<?x2x?x8xf16>
  %v_f32 = arith.constant dense<[[[[-1.0, 0.75, 0.25, -0.25, -0.75, 1.0, 0.5, 0.0], [-0.5, -1.0, 0.75, 0.25, -0.25, -0.75, 1.0, 0.5], [0.0, -0.5, -1.0, 0.75, 0.25, -0.25, -0.75, 1.0], [0.5, 0.0, -0.5, -1.0, 0.75, 0.25, -0.25, -0.75], [1.0, 0.5, 0.0, -0.5, -1.0, 0.75, 0.25, -0.25], [-0.75, 1.0, 0.5, 0.0, -0.5, -1.0, 0.75, 0.25]], [[0.25, -0.25, -0.75, 1.0, 0.5, 0.0, -0.5, -1.0], [0.75, 0.25, -0.25, -0.75, 1.0, 0.5, 0.0, -0.5], [-1.0, 0.75, 0.25, -0.25, -0.75, 1.0, 0.5, 0.0], [-0.5, -1.0, 0.75, 0.25, -0.25, -0.75, 1.0, 0.5], [0.0, -0.5, -1.0, 0.75, 0.25, -0.25, -0.75, 1.0], [0.5, 0.0, -0.5, -1.0, 0.75, 0.25, -0.25, -0.75]]], [[[-0.25, -0.75, 1.0, 0.5, 0.0, -0.5, -1.0, 0.75], [0.25, -0.25, -0.75, 1.0, 0.5, 0.0, -0.5, -1.0], [0.75, 0.25, -0.25, -0.75, 1.0, 0.5, 0.0, -0.5], [-1.0, 0.75, 0.25, -0.25, -0.75, 1.0, 0.5, 0.0], [-0.5, -1.0, 0.75, 0.25, -0.25, -0.75, 1.0, 0.5], [0.0, -0.5, -1.0, 0.75, 0.25, -0.25, -0.75, 1.0]], [[1.0, 0.5, 0.0, -0.5, -1.0, 0.75, 0.25, -0.25], [-0.75, 1.0, 0.5, 0.0, -0.5, -1.0, 0.75, 0.25], [-0.25, -0.75, 1.0, 0.5, 0.0, -0.5, -1.0, 0.75], [0.25, -0.25, -0.75, 1.0, 0.5, 0.0, -0.5, -1.0], [0.75, 0.25, -0.25, -0.75, 1.0, 0.5, 0.0, -0.5], [-1.0, 0.75, 0.25, -0.25, -0.75, 1.0, 0.5, 0.0]]]]> : tensor<2x2x6x8xf32>
  %v_f16 = arith.truncf %v_f32 : tensor<2x2x6x8xf32> to tensor<2x2x6x8xf16>
  %v = tensor.cast %v_f16 : tensor<2x2x6x8xf16> to tensor<?x2x?x8xf16>
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %q, %c0 : tensor<?x2x?x8xf16>
  %nq = tensor.dim %q, %c2 : tensor<?x2x?x8xf16>
  %o_init = tensor.empty(%b, %nq) : tensor<?x2x?x8xf16>
  %lse_init = tensor.empty(%b, %nq) : tensor<?x2x?xf32>
  %o, %lse = fa.attention ins(%q, %k, %v : tensor<?x2x?x8xf16>, tensor<?x2x?x8xf16>, tensor<?x2x?x8xf16>)
                          outs(%o_init, %lse_init : tensor<?x2x?x8xf16>, tensor<?x2x?xf32>)
                          -> tensor<?x2x?x8xf16>, tensor<?x2x?xf32>
  %o_f32 = arith.extf %o : tensor<?x2x?x8xf16> to tensor<?x2x?x8xf32>
  %o_f32_buf = bufferization.to_buffer %o_f32 : tensor<?x2x?x8xf32> to memref<?x2x?x8xf32>
  %o_f32_any = memref.cast %o_f32_buf : memref<?x2x?x8xf32> to memref<*xf32>
  call @printMemrefF32(%o_f32_any) : (memref<*xf32>) -> ()
  %lse_buf = bufferization.to_buffer %lse : tensor<?x2x?xf32> to memref<?x2x?xf32>
  %lse_any = memref.cast %lse_buf : memref<?x2x?xf32> to memref<*xf32>
  call @printMemrefF32(%lse_any) : (memref<*xf32>) -> ()
  return
}

func.func @bf16_gqa_causal() {
  %q_f32 = arith.constant dense<[[[[-1.0, 0.25, -0.75, 0.5, -0.5, 0.75, -0.25, 1.0], [-0.25, 1.0, 0.0, -1.0, 0.25, -0.75, 0.5, -0.5], [0.5, -0.5, 0.75, -0.25, 1.0, 0.0, -1.0, 0.25], [-1.0, 0.25, -0.75, 0.5, -0.5, 0.75, -0.25, 1.0]], [[0.75, -0.25, 1.0, 0.0, -1.0, 0.25, -0.75, 0.5], [-0.75, 0.5, -0.5, 0.75, -0.25, 1.0, 0.0, -1.0], [0.0, -1.0, 0.25, -0.75, 0.5, -0.5, 0.75, -0.25], [0.75, -0.25, 1.0, 0.0, -1.0, 0.25, -0.75, 0.5]], [[0.25, -0.75, 0.5, -0.5, 0.75, -0.25, 1.0, 0.0], [1.0, 0.0, -1.0, 0.25, -0.75, 0.5, -0.5, 0.75], [-0.5, 0.75, -0.25, 1.0, 0.0, -1.0, 0.25, -0.75], [0.25, -0.75, 0.5, -0.5, 0.75, -0.25, 1.0, 0.0]], [[-0.25, 1.0, 0.0, -1.0, 0.25, -0.75, 0.5, -0.5], [0.5, -0.5, 0.75, -0.25, 1.0, 0.0, -1.0, 0.25], [-1.0, 0.25, -0.75, 0.5, -0.5, 0.75, -0.25, 1.0], [-0.25, 1.0, 0.0, -1.0, 0.25, -0.75, 0.5, -0.5]]]]> : tensor<1x4x4x8xf32>
  %q_bf16 = arith.truncf %q_f32 : tensor<1x4x4x8xf32> to tensor<1x4x4x8xbf16>
  %q = tensor.cast %q_bf16 : tensor<1x4x4x8xbf16> to tensor<1x4x4x8xbf16>
  %k_f32 = arith.constant dense<[[[[-1.0, -0.25, 0.5, -1.0, -0.25, 0.5, -1.0, -0.25], [0.25, 1.0, -0.5, 0.25, 1.0, -0.5, 0.25, 1.0], [-0.75, 0.0, 0.75, -0.75, 0.0, 0.75, -0.75, 0.0], [0.5, -1.0, -0.25, 0.5, -1.0, -0.25, 0.5, -1.0]]]]> : tensor<1x1x4x8xf32>
  %k_bf16 = arith.truncf %k_f32 : tensor<1x1x4x8xf32> to tensor<1x1x4x8xbf16>
  %k = tensor.cast %k_bf16 : tensor<1x1x4x8xbf16> to tensor<1x1x4x8xbf16>
  %v_f32 = arith.constant dense<[[[[-1.0, 0.75, 0.25, -0.25], [-0.5, -1.0, 0.75, 0.25], [0.0, -0.5, -1.0, 0.75], [0.5, 0.0, -0.5, -1.0]]]]> : tensor<1x1x4x4xf32>
  %v_bf16 = arith.truncf %v_f32 : tensor<1x1x4x4xf32> to tensor<1x1x4x4xbf16>
  %v = tensor.cast %v_bf16 : tensor<1x1x4x4xbf16> to tensor<1x1x4x4xbf16>
  %o_init = tensor.empty() : tensor<1x4x4x4xbf16>
  %lse_init = tensor.empty() : tensor<1x4x4xf32>
  %o, %lse = fa.attention ins(%q, %k, %v : tensor<1x4x4x8xbf16>, tensor<1x1x4x8xbf16>, tensor<1x1x4x4xbf16>)
                          outs(%o_init, %lse_init : tensor<1x4x4x4xbf16>, tensor<1x4x4xf32>) causal
                          -> tensor<1x4x4x4xbf16>, tensor<1x4x4xf32>
  %o_f32 = arith.extf %o : tensor<1x4x4x4xbf16> to tensor<1x4x4x4xf32>
  %o_f32_buf = bufferization.to_buffer %o_f32 : tensor<1x4x4x4xf32> to memref<1x4x4x4xf32>
  %o_f32_any = memref.cast %o_f32_buf : memref<1x4x4x4xf32> to memref<*xf32>
  call @printMemrefF32(%o_f32_any) : (memref<*xf32>) -> ()
  %lse_buf = bufferization.to_buffer %lse : tensor<1x4x4xf32> to memref<1x4x4xf32>
  %lse_any = memref.cast %lse_buf : memref<1x4x4xf32> to memref<*xf32>
  call @printMemrefF32(%lse_any) : (memref<*xf32>) -> ()
  return
}
