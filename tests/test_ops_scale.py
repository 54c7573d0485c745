"""Scale-out on existing engines: the same finegrad.ops model with a custom-gradient layer
trains data-parallel on JAX (jax.jit over a Mesh with NamedSharding, 4 host devices) and on
PyTorch (DistributedDataParallel, 2 processes, gloo), with the gradients of one process.
Each run is a fresh subprocess, since both set process-wide state."""
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MODEL = """
import numpy as np
from finegrad import ops

@ops.custom_gradient
def log1pexp(x):
    e = ops.exp(x)
    def grad(upstream):
        return ops.multiply(upstream, 1.0 - 1.0 / ops.add(1, e))
    return ops.log(1 + e), grad

def loss(w, x, y):
    return ops.mean(log1pexp(ops.negative(ops.multiply(y, ops.matmul(x, w)))))

rng = np.random.default_rng(0)
X = rng.normal(size=(8, 3)).astype(np.float32)
Y = np.sign(rng.normal(size=8)).astype(np.float32)
W = rng.normal(size=3).astype(np.float32)
"""


def _run(script, path=None, **env):
    """Run MODEL + ``script`` in a fresh Python (from the file ``path`` when given: spawned
    worker processes re-import the main module)."""
    code = textwrap.dedent(MODEL + script)
    if path is not None:
        path.write_text(code)
    out = subprocess.run([sys.executable] + (["-c", code] if path is None else [str(path)]),
                         capture_output=True, text=True, cwd=ROOT, timeout=300,
                         env={**os.environ, "PYTHONPATH": ROOT, **env})
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_jax_data_parallel_with_named_sharding_matches_one_device():
    pytest.importorskip("jax")
    out = _run("""
import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
assert len(jax.devices()) == 4
mesh = Mesh(np.array(jax.devices()), ("data",))
with ops.backend_scope("jax"):
    step = jax.jit(jax.value_and_grad(loss))
    x = jax.device_put(X, NamedSharding(mesh, P("data")))
    y = jax.device_put(Y, NamedSharding(mesh, P("data")))
    w = jax.device_put(W, NamedSharding(mesh, P()))
    value, g = step(w, x, y)
    assert len(x.sharding.device_set) == 4
    value1, g1 = jax.value_and_grad(loss)(jax.device_put(W, jax.devices()[0]), X, Y)
np.testing.assert_allclose(np.asarray(g), np.asarray(g1), rtol=1e-5)
with ops.backend_scope("finegrad"):
    gf = ops.grad(loss)(ops.convert_to_tensor(W), ops.convert_to_tensor(X),
                        ops.convert_to_tensor(Y))
np.testing.assert_allclose(np.asarray(g), ops.convert_to_numpy(gf), rtol=1e-5)
print("ok")
""", XLA_FLAGS="--xla_force_host_platform_device_count=4", JAX_PLATFORMS="cpu")
    assert out.strip().endswith("ok")


def test_torch_ddp_two_processes_gloo_matches_one_process(tmp_path):
    pytest.importorskip("torch")
    out = _run(f"""
import torch, torch.distributed as dist, torch.multiprocessing as mp

class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.tensor(W))
    def forward(self, x, y):
        return loss(self.w, x, y)

def worker(rank):
    dist.init_process_group("gloo", init_method="file://{tmp_path}/rendezvous",
                            rank=rank, world_size=2)
    with ops.backend_scope("torch"):
        model = torch.nn.parallel.DistributedDataParallel(Model())
        half = slice(4 * rank, 4 * rank + 4)
        model(torch.tensor(X[half]), torch.tensor(Y[half])).backward()
    torch.save(model.module.w.grad, "{tmp_path}/grad%d.pt" % rank)
    dist.barrier()    # neither rank tears gloo down while the other still talks to it
    dist.destroy_process_group()

if __name__ == "__main__":
    mp.spawn(worker, nprocs=2)
    with ops.backend_scope("torch"):
        model = Model()
        model(torch.tensor(X), torch.tensor(Y)).backward()
    for rank in range(2):
        torch.testing.assert_close(torch.load("{tmp_path}/grad%d.pt" % rank), model.w.grad)
    print("ok")
""", path=tmp_path / "ddp.py")
    assert out.strip().endswith("ok")
