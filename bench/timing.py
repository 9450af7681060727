"""Timing shared by the benchmarks: CUDA-graph replay for short kernels,
and implementations interleaved round by round so that clock and thermal
drift falls on all of them alike (docs/performance.md, how to measure)."""
import statistics

import torch

CALLS_PER_GRAPH = 20


def graph_time_ms(fn):
    """Per-call time of `fn` replayed from a CUDA graph of 20 calls (the
    median of 5 replays): launch gaps out of the figure, as a serving loop
    captured in a graph sees it."""
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        for _ in range(CALLS_PER_GRAPH):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(5):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / CALLS_PER_GRAPH)
    return statistics.median(times)


def interleaved_times(calls, repeats, timer=graph_time_ms):
    """{name: [ms per round]}: each round times every call of `calls`
    ({name: fn}) once, starting one name later than the round before."""
    names = list(calls)
    times = {n: [] for n in names}
    for r in range(repeats):
        for n in names[r % len(names):] + names[:r % len(names)]:
            times[n].append(timer(calls[n]))
    return times
