// A bounded run of the fuzzer (test/fuzz/fa_fuzz.py), fixed seeds so that CI
// is deterministic: generated and mutated programs through random pipelines
// with random options must each end in success or in a diagnostic. It fails,
// printing the minimized reproducers, on any crash, hang or file written
// outside the output directory. The long run is recorded in
// docs/reliability.md.
//
// RUN: %python %S/fa_fuzz.py --fa-opt fa-opt --seed 101 --cases 400 --timeout 60 --quiet --out %t.101
// RUN: %python %S/fa_fuzz.py --fa-opt fa-opt --seed 202 --cases 400 --timeout 60 --quiet --out %t.202
