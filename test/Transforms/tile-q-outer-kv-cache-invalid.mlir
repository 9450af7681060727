// A paged K/V block is read from one page: block-n must divide the page
// size (an error on the op naming both), and auto-blocks needs a page size
// that is a multiple of 16, the atom's smallest K/V block (named).

// RUN: fa-opt %s -split-input-file --fa-tile-q-outer="block-m=16 block-n=64" -verify-diagnostics
// RUN: sed -e 's/x48x2x64/x40x2x64/g' %s | not fa-opt -split-input-file --fa-tile-q-outer="auto-blocks=true" 2>&1 | FileCheck %s --check-prefix=AUTO
// RUN: sed -e 's/x48x2x64/x40x2x64/g' %s | not fa-opt -split-input-file --fa-tile-q-outer="auto-blocks=true atom=wgmma chip=sm_90a" 2>&1 | FileCheck %s --check-prefix=AUTO-WGMMA
// AUTO: error: fa-tile-q-outer: page size 40 is not a multiple of 16, the smallest K/V block of the #fa.mma_sync atom (a K/V block is read from one page)
// AUTO-WGMMA: error: fa-tile-q-outer: page size 40 is not a multiple of 16, the smallest K/V block of the #fa.wgmma atom (a K/V block is read from one page)

func.func @block_n_not_dividing_pages(%q: tensor<?x4x?x64xf16>, %k: tensor<?x48x2x64xf16>, %v: tensor<?x48x2x64xf16>,
                                      %n: tensor<?xi32>, %t: tensor<?x?xi32>, %o: tensor<?x4x?x64xf16>) -> tensor<?x4x?x64xf16> {
  // expected-error @+1 {{fa-tile-q-outer: block-n (64) must divide the page size (48): a K/V block is read from one page}}
  %r = fa.attention ins(%q, %k, %v : tensor<?x4x?x64xf16>, tensor<?x48x2x64xf16>, tensor<?x48x2x64xf16>)
           key_lengths(%n : tensor<?xi32>) block_table(%t : tensor<?x?xi32>)
           outs(%o : tensor<?x4x?x64xf16>) -> tensor<?x4x?x64xf16>
  return %r : tensor<?x4x?x64xf16>
}
