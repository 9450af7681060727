"""fa_mlir.attention inside torch.compile(fullgraph=True) and CUDA graphs."""
import pytest

torch = pytest.importorskip("torch")

import cases  # noqa: E402
import fa_mlir  # noqa: E402
from fa_mlir.reference import attention_reference  # noqa: E402


class Attention(torch.nn.Module):
    """A projection, our attention in flash_attn's [B, N, H, D] layout, and
    an output projection: enough graph around the op for inductor to fuse."""

    def __init__(self, hidden=512, heads=8, kv_heads=2):
        super().__init__()
        self.heads, self.kv_heads, self.d = heads, kv_heads, hidden // heads
        self.qkv = torch.nn.Linear(hidden, (heads + 2 * kv_heads) * self.d, bias=False)
        self.out = torch.nn.Linear(hidden, hidden, bias=False)

    def forward(self, x):
        b, n, _ = x.shape
        q, k, v = self.qkv(x).split([self.heads * self.d, self.kv_heads * self.d,
                                     self.kv_heads * self.d], dim=-1)
        q = q.view(b, n, self.heads, self.d)
        k = k.view(b, n, self.kv_heads, self.d)
        v = v.view(b, n, self.kv_heads, self.d)
        o = fa_mlir.attention(q, k, v, causal=True, layout="bnhd")
        return self.out(o.reshape(b, n, -1))


def reference_forward(m, x):
    b, n, _ = x.shape
    q, k, v = m.qkv(x).split([m.heads * m.d, m.kv_heads * m.d, m.kv_heads * m.d], dim=-1)
    o, _ = attention_reference(q.view(b, n, m.heads, m.d), k.view(b, n, m.kv_heads, m.d),
                               v.view(b, n, m.kv_heads, m.d), causal=True, layout="bnhd")
    return m.out(o.to(x.dtype).reshape(b, n, -1))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_torch_compile_fullgraph(dtype):
    import torch._dynamo
    torch._dynamo.reset()
    torch.manual_seed(0)
    m = Attention().to(cases.DEVICE).to(dtype).eval()
    compiled = torch.compile(m, fullgraph=True)
    with torch.no_grad():
        for n in (128, 200):  # a second length: a recompile or dynamic shapes
            x = torch.randn(2, n, 512, device=cases.DEVICE, dtype=dtype)
            got, want = compiled(x), reference_forward(m, x)
            assert (got.float() - want.float()).abs().max().item() < 5e-2
    # fullgraph=True already fails on a graph break; count the graphs too.
    explained = torch._dynamo.explain(m)(torch.randn(2, 64, 512, device=cases.DEVICE, dtype=dtype))
    assert explained.graph_break_count == 0 and explained.graph_count == 1


@pytest.mark.cuda_only
def test_cuda_graph_capture_and_replay():
    torch.manual_seed(0)
    q = torch.randn(2, 8, 256, 64, device=cases.DEVICE, dtype=torch.float16)
    k = torch.randn(2, 2, 256, 64, device=cases.DEVICE, dtype=torch.float16)
    v = torch.randn(2, 2, 256, 64, device=cases.DEVICE, dtype=torch.float16)
    # Warm up on a side stream (loads the kernel: no module load during capture).
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fa_mlir.attention(q, k, v, causal=True)
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = fa_mlir.attention(q, k, v, causal=True)
    for _ in range(2):
        q.copy_(torch.randn_like(q))
        k.copy_(torch.randn_like(k))
        graph.replay()
        torch.cuda.synchronize()
        ref, _ = attention_reference(q, k, v, causal=True)
        assert (out.float() - ref).abs().max().item() < 1e-2


@pytest.mark.cuda_only
def test_compile_with_cuda_graphs_mode():
    import torch._dynamo
    torch._dynamo.reset()
    m = Attention().to(cases.DEVICE).half().eval()
    compiled = torch.compile(m, fullgraph=True, mode="reduce-overhead")
    x = torch.randn(1, 128, 512, device=cases.DEVICE, dtype=torch.float16)
    with torch.no_grad():
        for _ in range(3):
            got = compiled(x).clone()
        want = reference_forward(m, x)
    assert (got.float() - want.float()).abs().max().item() < 5e-2
