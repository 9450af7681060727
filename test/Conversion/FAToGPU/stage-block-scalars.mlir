// RUN: fa-opt %s --split-input-file --fa-stage-block-scalars | FileCheck %s
// RUN: fa-opt %s --split-input-file --fa-stage-block-scalars=all-kernels=true | FileCheck %s --check-prefix=ALL
// RUN: fa-opt %s --split-input-file --fa-stage-block-scalars=max-scalars=0 | FileCheck %s --check-prefix=NONE

// A block scalar loaded from memory (a sequence's start) and used in and
// after the K/V loop is written once by thread 0 before the barrier ahead
// of the loop, and read back where used. A value of the thread index, and
// one used only before the loop, stay registers; so does the loop's bound.

// CHECK-LABEL: gpu.func @staged
// CHECK-SAME: %[[CU:[a-z0-9]+]]: memref<?xi32>
// CHECK-SAME: workgroup(%[[SLOTS:.*]] : memref<2xindex, #gpu.address_space<workgroup>>)
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[S:.*]] = memref.load %[[CU]]
// CHECK: %[[START:.*]] = arith.index_cast %[[S]] : i32 to index
// CHECK: %[[MINE:.*]] = arith.addi %[[START]], %[[TID]]
// CHECK: %[[LAST:.*]] = arith.addi %[[START]], %{{.*}}
// CHECK: %[[EARLY:.*]] = arith.muli %[[START]]
// CHECK: memref.store %[[EARLY]]
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK-NOT: gpu.thread_id y
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.store %[[START]], %[[SLOTS]][%[[C0]]]
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: memref.store %[[LAST]], %[[SLOTS]][%[[C1]]]
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[N:.*]] step
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[W0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[R0:.*]] = memref.load %[[SLOTS]][%[[W0]]]
// CHECK-NEXT: %[[ROW:.*]] = arith.addi %[[R0]], %[[J]]
// CHECK-NEXT: arith.addi %[[ROW]], %[[MINE]]
// CHECK: %[[W1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[R1:.*]] = memref.load %[[SLOTS]][%[[W1]]]
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[R1]]] : memref<?xf32>
// ALL-LABEL: gpu.func @staged
// ALL-SAME: workgroup(
// NONE-LABEL: gpu.func @staged
// NONE-NOT: workgroup(
// NONE: gpu.return
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @staged(%cu: memref<?xi32>, %out: memref<?xf32>, %tmp: memref<?xindex>, %n: index)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>, fa.stage_block_scalars} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %s = memref.load %cu[%bid] : memref<?xi32>
      %start = arith.index_cast %s : i32 to index
      %mine = arith.addi %start, %tid : index
      %last = arith.addi %start, %c1 : index
      %early = arith.muli %start, %c64 : index
      memref.store %early, %tmp[%c0] : memref<?xindex>
      gpu.barrier
      %r = scf.for %j = %c0 to %n step %c64 iter_args(%acc = %c0) -> (index) {
        gpu.barrier
        %row = arith.addi %start, %j : index
        %t = arith.addi %row, %mine : index
        %a = arith.addi %acc, %t : index
        scf.yield %a : index
      }
      %f = arith.index_cast %r : index to i32
      %g = arith.sitofp %f : i32 to f32
      memref.store %g, %out[%last] : memref<?xf32>
      gpu.return
    }
  }
}

// -----

// Without the mark the kernel is left as it is (all-kernels stages it).

// CHECK-LABEL: gpu.func @unmarked
// CHECK-NOT: workgroup
// CHECK: gpu.return
// ALL-LABEL: gpu.func @unmarked
// ALL-SAME: workgroup(%{{.*}} : memref<1xindex, #gpu.address_space<workgroup>>)
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @unmarked(%cu: memref<?xi32>, %out: memref<?xindex>, %n: index)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %bid = gpu.block_id x
      %s = memref.load %cu[%bid] : memref<?xi32>
      %start = arith.index_cast %s : i32 to index
      gpu.barrier
      %r = scf.for %j = %c0 to %n step %c64 iter_args(%acc = %c0) -> (index) {
        gpu.barrier
        %a = arith.addi %acc, %start : index
        scf.yield %a : index
      }
      memref.store %r, %out[%bid] : memref<?xindex>
      gpu.return
    }
  }
}

// -----

// What is not known to be the same in every thread stays a register: a
// load from memory the kernel writes, a load at a lane's own index, a
// shuffle from a lane that differs between threads. A value of parameters
// and block indices alone (no load) stays one too: ptxas recomputes it.

// CHECK-LABEL: gpu.func @divergent
// CHECK-NOT: workgroup
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @divergent(%cu: memref<?xi32>, %rw: memref<?xi32>, %out: memref<?xi32>, %n: index)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>, fa.stage_block_scalars} {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %w32 = arith.constant 32 : i32
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %written = memref.load %rw[%bid] : memref<?xi32>
      %lane = arith.remui %tid, %c32 : index
      %own = memref.load %cu[%tid] : memref<?xi32>
      %lane32 = arith.index_cast %tid : index to i32
      %from, %ok = gpu.shuffle idx %own, %lane32, %w32 : i32
      %params = arith.muli %bid, %c4 : index
      gpu.barrier
      %r:4 = scf.for %j = %c0 to %n step %c64
          iter_args(%a = %written, %b = %own, %c = %from, %d = %params) -> (i32, i32, i32, index) {
        gpu.barrier
        %a1 = arith.addi %a, %written : i32
        %b1 = arith.addi %b, %own : i32
        %c1 = arith.addi %c, %from : i32
        %d1 = arith.addi %d, %params : index
        scf.yield %a1, %b1, %c1, %d1 : i32, i32, i32, index
      }
      memref.store %r#0, %rw[%bid] : memref<?xi32>
      memref.store %r#1, %out[%tid] : memref<?xi32>
      memref.store %r#2, %out[%r#3] : memref<?xi32>
      gpu.return
    }
  }
}

// -----

// A load from a workgroup attribution (memory the threads write) is not
// known to be uniform, even at a uniform index.

// CHECK-LABEL: gpu.func @attribution
// CHECK-SAME: workgroup(%{{.*}} : memref<4xi32, #gpu.address_space<workgroup>>)
// CHECK-NOT: memref<1xindex
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @attribution(%out: memref<?xi32>, %n: index)
        workgroup(%shared : memref<4xi32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>, fa.stage_block_scalars} {
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %bid = gpu.block_id x
      %s = memref.load %shared[%c0] : memref<4xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %r = scf.for %j = %c0 to %n step %c64 iter_args(%acc = %s) -> (i32) {
        gpu.barrier
        %a = arith.addi %acc, %s : i32
        scf.yield %a : i32
      }
      memref.store %r, %out[%bid] : memref<?xi32>
      gpu.return
    }
  }
}

// -----

// fa.varlen_block's walk on the lanes of a warp: each lane loads its own
// sequence's offsets (a function of the lane alone), a scan by shuffles up
// and a full ballot make the block's sequence the same in every thread;
// what is loaded at it is staged. No barrier before the loop: one is added.

// CHECK-LABEL: gpu.func @walk
// CHECK-SAME: workgroup(%[[SLOTS:.*]] : memref<1xindex, #gpu.address_space<workgroup>>)
// CHECK: %[[WALK:.*]]:2 = scf.for
// CHECK: %[[K:.*]] = memref.load %{{.*}}[%[[WALK]]#1]
// CHECK: %[[KSTART:.*]] = arith.index_cast %[[K]] : i32 to index
// CHECK: scf.if
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: memref.store %[[KSTART]], %[[SLOTS]]
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.for
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: memref.load %[[SLOTS]]
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @walk(%cu: memref<?xi32>, %out: memref<?xindex>, %n: index, %nseq: index)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>, fa.stage_block_scalars} {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %z = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %w32 = arith.constant 32 : i32
      %all = arith.constant -1 : i32
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bid32 = arith.index_cast %bid : index to i32
      %lane = arith.remui %tid, %c32 : index
      %walk:2 = scf.for %base = %c0 to %nseq step %c32 iter_args(%seen = %z, %seq = %c0) -> (i32, index) {
        %mine = arith.addi %base, %lane : index
        %len = memref.load %cu[%mine] : memref<?xi32>
        %up, %valid = gpu.shuffle up %len, %one, %w32 : i32
        %sum = arith.addi %len, %up : i32
        %scan = arith.select %valid, %sum, %len : i32
        %ends = arith.addi %seen, %scan : i32
        %past = arith.cmpi ule, %ends, %bid32 : i32
        %ballot = nvvm.vote.sync ballot %all, %past -> i32
        %count = llvm.intr.ctpop(%ballot) : (i32) -> i32
        %countx = arith.index_cast %count : i32 to index
        %found = arith.addi %base, %countx : index
        %total, %ok = gpu.shuffle idx %scan, %w32, %w32 : i32
        %seen2 = arith.addi %seen, %total : i32
        scf.yield %seen2, %found : i32, index
      }
      %k = memref.load %cu[%walk#1] : memref<?xi32>
      %kstart = arith.index_cast %k : i32 to index
      %r = scf.for %j = %c0 to %n step %c64 iter_args(%acc = %c0) -> (index) {
        gpu.barrier
        %a = arith.addi %acc, %kstart : index
        scf.yield %a : index
      }
      memref.store %r, %out[%bid] : memref<?xindex>
      gpu.return
    }
  }
}

// -----

// A launch plan whose dynamic shared memory leaves no room for the words
// (227 KB of sm_90, 16 bytes short): the kernel is left as it is.

// CHECK-LABEL: gpu.func @full
// CHECK-NOT: workgroup
// CHECK: gpu.return
module attributes {gpu.container_module} {
  func.func @host(%cu: memref<?xi32>, %out: memref<?xindex>, %n: index) {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %bytes = arith.constant 232440 : i32
    gpu.launch_func @m::@full blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        dynamic_shared_memory_size %bytes
        args(%cu : memref<?xi32>, %out : memref<?xindex>, %n : index)
        {fa.launch_plan = {chip = "sm_90", kernels = [{name = "full", dynamic_shared_memory = 232440 : i64}]}}
    return
  }
  gpu.module @m {
    gpu.func @full(%cu: memref<?xi32>, %out: memref<?xindex>, %n: index)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>, fa.stage_block_scalars} {
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %bid = gpu.block_id x
      %s = memref.load %cu[%bid] : memref<?xi32>
      %start = arith.index_cast %s : i32 to index
      gpu.barrier
      %r = scf.for %j = %c0 to %n step %c64 iter_args(%acc = %c0) -> (index) {
        gpu.barrier
        %a = arith.addi %acc, %start : index
        scf.yield %a : index
      }
      memref.store %r, %out[%bid] : memref<?xindex>
      gpu.return
    }
  }
}
