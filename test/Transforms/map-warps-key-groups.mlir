// RUN: fa-opt %s -split-input-file --fa-map-warps="num-warps=1 key-groups=4" | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-map-warps="num-warps=1" | FileCheck %s --check-prefix=AUTO
// RUN: sed -e 's/} {fa.key_groups = 4 : i64}/}/' %s | fa-opt -split-input-file --fa-map-warps="num-warps=1" | FileCheck %s --check-prefix=NONE
// RUN: fa-opt %s -split-input-file --fa-map-warps="num-warps=1 key-groups=1" | FileCheck %s --check-prefix=NONE
// RUN: not fa-opt %s -split-input-file --fa-map-warps="num-warps=1 key-groups=3" 2>&1 | FileCheck %s --check-prefix=BAD-COUNT
// RUN: not fa-opt %s -split-input-file --fa-map-warps="num-warps=1 key-groups=16" 2>&1 | FileCheck %s --check-prefix=BAD-COUNT
// RUN: sed -e 's/%cN = arith.constant 128/%cN = arith.constant 32/; s/128x64xf16/32x64xf16/g; s/16x128x/16x32x/g' %s \
// RUN:   | not fa-opt -split-input-file --fa-map-warps="num-warps=1 key-groups=4" 2>&1 | FileCheck %s --check-prefix=BAD-BLOCK
// RUN: not fa-opt %s -split-input-file --fa-map-warps="num-warps=4 atom=wgmma key-groups=4" 2>&1 | FileCheck %s --check-prefix=BAD-ATOM

// Key groups (warps along the keys, for a decode step's 16-row Q block):
// 4 groups of one warp divide each 128-key block, 32 keys a group. S and P
// are `share = columns`, the accumulator and the running sum `share =
// sum`; Q, the running max, alpha, O and the LSE are whole in every group.
// The K and V tiles are swizzled (swizzle-shared=auto: S + O + Q fragments
// of 16 + 32 + 16 registers a thread).
// CHECK-LABEL: func @decode_key_groups
// CHECK: %[[QA:.*]] = fa.convert_layout %{{.*}} : tensor<16x64xf16, #shared> -> tensor<16x64xf16, #opA_w1x4>
// CHECK: scf.for {{.*}} -> (tensor<16xf32, #rows_w1x4>, tensor<16xf32, #partial_w1x4_sum>, tensor<16x64xf32, #acc_w1x4_sum>)
// CHECK: %[[S:.*]] = fa.qk %[[QA]], %{{.*}} : tensor<16x64xf16, #opA_w1x4>, tensor<128x64xf16, #shared_swz> -> tensor<16x128xf32, #acc_w1x4_cols>
// CHECK: %[[SM:.*]] = fa.mask %[[S]]{{.*}} : tensor<16x128xf32, #acc_w1x4_cols>
// CHECK: %[[P:.*]], %{{.*}}, %{{.*}}, %[[ALPHA:.*]] = fa.online_softmax %[[SM]], {{.*}} : tensor<16x128xf32, #acc_w1x4_cols>, tensor<16xf32, #rows_w1x4>, tensor<16xf32, #partial_w1x4_sum>
// CHECK: %[[P16:.*]] = arith.truncf %[[P]] : tensor<16x128xf32, #acc_w1x4_cols> to tensor<16x128xf16, #acc_w1x4_cols>
// CHECK: %[[PA:.*]] = fa.convert_layout %[[P16]] : tensor<16x128xf16, #acc_w1x4_cols> -> tensor<16x128xf16, #opA_w1x4_cols>
// CHECK: %[[ACC:.*]] = fa.rescale %{{.*}}, %[[ALPHA]] : tensor<16x64xf32, #acc_w1x4_sum>, tensor<16xf32, #rows_w1x4>
// CHECK: fa.pv %[[PA]], %{{.*}}, %[[ACC]] : tensor<16x128xf16, #opA_w1x4_cols>, tensor<128x64xf16, #shared_swz>, tensor<16x64xf32, #acc_w1x4_sum>
// CHECK: fa.finalize {{.*}} : tensor<16x64xf32, #acc_w1x4_sum>, tensor<16xf32, #rows_w1x4>, tensor<16xf32, #partial_w1x4_sum> -> tensor<16x64xf16, #acc_w1x4>

// key-groups=0 (the default) takes the count the tiling recorded on the
// loop nest (fa.key_groups), and none without it; key-groups=1: none.
// AUTO-LABEL: func @decode_key_groups
// AUTO: fa.qk {{.*}} -> tensor<16x128xf32, #acc_w1x4_cols>
// NONE-LABEL: func @decode_key_groups
// NONE-NOT: replicas
// NONE: fa.qk {{.*}} -> tensor<16x128xf32, #acc_w1>

// BAD-COUNT: fa-map-warps: option key-groups must be 1, 2, 4 or 8 (or 0 for the tiling's choice), got
// BAD-BLOCK: fa-map-warps: block-n (32) must be a multiple of 16 * key-groups = 64: each group of warps takes whole 16-key steps of the block
// BAD-ATOM: fa-map-warps: key-groups is implemented for #fa.mma_sync only, not with atom=wgmma

func.func @decode_key_groups(%q: tensor<?x2x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %o: tensor<?x2x?x64xf16>) -> tensor<?x2x?x64xf16> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %cM = arith.constant 16 : index
  %cN = arith.constant 128 : index
  %zero = arith.constant 0.0 : f16
  %scale = arith.constant 0.180336878 : f32
  %nb = tensor.dim %q, %c0 : tensor<?x2x?x64xf16>
  %nq = tensor.dim %q, %c2 : tensor<?x2x?x64xf16>
  %nk = tensor.dim %k, %c2 : tensor<?x2x?x64xf16>
  %nqb = arith.ceildivui %nq, %cM : index
  %off = arith.subi %nk, %nq : index
  %res = scf.forall (%b, %h, %qb) in (%nb, 2, %nqb) shared_outs(%os = %o) -> (tensor<?x2x?x64xf16>) {
    %q0 = arith.muli %qb, %cM : index
    %qleft = arith.subi %nq, %q0 : index
    %qrows = arith.minsi %cM, %qleft : index
    %qs = tensor.extract_slice %q[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
    %qpad = arith.subi %cM, %qrows : index
    %qt = tensor.pad %qs low[0, 0] high[%qpad, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f16
    } : tensor<?x64xf16> to tensor<16x64xf16>
    %m0 = arith.constant dense<0xFF800000> : tensor<16xf32>
    %l0 = arith.constant dense<0.0> : tensor<16xf32>
    %acc0 = arith.constant dense<0.0> : tensor<16x64xf32>
    %r:3 = scf.for %k0 = %c0 to %nk step %cN iter_args(%m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<16xf32>, tensor<16xf32>, tensor<16x64xf32>) {
      %kleft = arith.subi %nk, %k0 : index
      %krows = arith.minsi %cN, %kleft : index
      %kpad = arith.subi %cN, %krows : index
      %ks = tensor.extract_slice %k[%b, %h, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %kt = tensor.pad %ks low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<128x64xf16>
      %vs = tensor.extract_slice %v[%b, %h, %k0, 0] [1, 1, %krows, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf16> to tensor<?x64xf16>
      %vt = tensor.pad %vs low[0, 0] high[%kpad, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f16
      } : tensor<?x64xf16> to tensor<128x64xf16>
      %s = fa.qk %qt, %kt : tensor<16x64xf16>, tensor<128x64xf16> -> tensor<16x128xf32>
      %sm = fa.mask %s[%q0, %k0] key_limit(%nk) : tensor<16x128xf32>
      %p, %m2, %l2, %alpha = fa.online_softmax %sm, %m, %l scale(%scale) : tensor<16x128xf32>, tensor<16xf32>, tensor<16xf32>
      %p16 = arith.truncf %p : tensor<16x128xf32> to tensor<16x128xf16>
      %acc1 = fa.rescale %acc, %alpha : tensor<16x64xf32>, tensor<16xf32>
      %acc2 = fa.pv %p16, %vt, %acc1 : tensor<16x128xf16>, tensor<128x64xf16>, tensor<16x64xf32>
      scf.yield %m2, %l2, %acc2 : tensor<16xf32>, tensor<16xf32>, tensor<16x64xf32>
    }
    %ot, %lset = fa.finalize %r#2, %r#0, %r#1 : tensor<16x64xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<16x64xf16>
    %orows = tensor.extract_slice %ot[0, 0] [%qrows, 64] [1, 1] : tensor<16x64xf16> to tensor<?x64xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %orows into %os[%b, %h, %q0, 0] [1, 1, %qrows, 64] [1, 1, 1, 1] : tensor<?x64xf16> into tensor<?x2x?x64xf16>
    }
  } {fa.key_groups = 4 : i64}
  return %res : tensor<?x2x?x64xf16>
}


