// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="block-m=16 block-n=16" --fa-split-kv=splits=0 -verify-diagnostics

// Where a run-time split count cannot come from.

// A function called in the module cannot get a new argument: its callers
// would not pass it.
func.func @called(%q: tensor<1x2x1x16xf16>, %k: tensor<1x2x64x16xf16>, %v: tensor<1x2x64x16xf16>,
                  %o: tensor<1x2x1x16xf16>) -> tensor<1x2x1x16xf16> {
  // expected-error @+1 {{fa-split-kv: splits=0 (a run-time split count) needs an index argument marked fa.num_splits in @called, which is called in the module and cannot get a new one}}
  %r = fa.attention ins(%q, %k, %v : tensor<1x2x1x16xf16>, tensor<1x2x64x16xf16>, tensor<1x2x64x16xf16>)
                    outs(%o : tensor<1x2x1x16xf16>) -> tensor<1x2x1x16xf16>
  return %r : tensor<1x2x1x16xf16>
}
func.func @user(%q: tensor<1x2x1x16xf16>, %k: tensor<1x2x64x16xf16>, %v: tensor<1x2x64x16xf16>,
                %o: tensor<1x2x1x16xf16>) -> tensor<1x2x1x16xf16> {
  %r = call @called(%q, %k, %v, %o) : (tensor<1x2x1x16xf16>, tensor<1x2x64x16xf16>, tensor<1x2x64x16xf16>, tensor<1x2x1x16xf16>) -> tensor<1x2x1x16xf16>
  return %r : tensor<1x2x1x16xf16>
}

// -----

func.func @not_index(%n: i32 {fa.num_splits}, %q: tensor<1x2x1x16xf16>, %k: tensor<1x2x64x16xf16>,
                     %v: tensor<1x2x64x16xf16>, %o: tensor<1x2x1x16xf16>) -> tensor<1x2x1x16xf16> {
  // expected-error @+1 {{fa-split-kv: the argument marked fa.num_splits must be an index, got 'i32'}}
  %r = fa.attention ins(%q, %k, %v : tensor<1x2x1x16xf16>, tensor<1x2x64x16xf16>, tensor<1x2x64x16xf16>)
                    outs(%o : tensor<1x2x1x16xf16>) -> tensor<1x2x1x16xf16>
  return %r : tensor<1x2x1x16xf16>
}

// -----

func.func @two_marked(%n: index {fa.num_splits}, %m: index {fa.num_splits},
                      %q: tensor<1x2x1x16xf16>, %k: tensor<1x2x64x16xf16>,
                      %v: tensor<1x2x64x16xf16>, %o: tensor<1x2x1x16xf16>) -> tensor<1x2x1x16xf16> {
  // expected-error @+1 {{fa-split-kv: function @two_marked has two arguments marked fa.num_splits}}
  %r = fa.attention ins(%q, %k, %v : tensor<1x2x1x16xf16>, tensor<1x2x64x16xf16>, tensor<1x2x64x16xf16>)
                    outs(%o : tensor<1x2x1x16xf16>) -> tensor<1x2x1x16xf16>
  return %r : tensor<1x2x1x16xf16>
}
