// Decomposes linalg.softmax into generics (max, sub+exp, sum, div) so that
// the program as written can run on the CPU: --fa-lower-to-cpu, like
// upstream's linalg-to-loops, only lowers structured ops.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %softmax = transform.structured.match ops{["linalg.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %generics = transform.structured.decompose_interface %softmax : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
