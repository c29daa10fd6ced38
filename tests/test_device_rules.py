"""CUDA's device rules, enforced on the CPU: every experiment notebook at smoke scale with device="cuda".

A virtual CUDA (tests/virtual_cuda.py) makes CUDA available on a CPU-only torch and raises where a real GPU
would: a CPU tensor meeting a device tensor, a CPU generator drawing device numbers, `.numpy()` on the device.
All the notebooks run in one child process (tests/run_on_virtual_cuda.py), so the virtual CUDA never leaks
into the other tests and torch is imported once. No test here needs, or uses, a real GPU.

A notebook also fails if it never sent a tensor to its device: its `device` parameter was ignored.
"""
import json
import subprocess
import sys
from pathlib import Path

from helpers import NBS, ROOT, clean_env

WORKER = Path(__file__).resolve().parent / "run_on_virtual_cuda.py"
NOTEBOOKS = sorted(p.relative_to(NBS).as_posix() for pattern in ("*/90_*.ipynb", "*/91_*.ipynb")
                   for p in NBS.glob(pattern))

# Known CUDA bugs of today's code (issue 37): strict, so a fix that lands makes the mark fail until removed.
KNOWN_BUGS = {}  # issue 37 bugs 2-6 fixed by the audits; their notebooks keep the rules
# Notebooks whose `device` parameter is ignored today: they run, but nothing reaches the device. Empty since gce 90/91
# and mtlora 91 pass their device on (issue 37); a notebook listed here must still ignore it (strict).
IGNORES_DEVICE = {}
# Notebooks that are CPU-bound by design, as their paper's overview states: they may leave the device unused.
CPU_BOUND = {"etap/90_experiment.ipynb", "etap/91_benchmark.ipynb"}  # ETAP: see etap/00_overview


def test_every_experiment_keeps_device_rules(tmp_path):
    """All experiment notebooks in one child process (one item, so that pytest-xdist never runs them twice).
    A notebook listed as a known bug must still fail (strict): when its fix lands, remove it from the list."""
    result = tmp_path / "runs.json"
    proc = subprocess.run([sys.executable, str(WORKER), str(result), *(str(NBS / rel) for rel in NOTEBOOKS)],
                          cwd=ROOT, env={**clean_env(), "GCELIB_QUIET": "1", "MPLBACKEND": "Agg"},
                          capture_output=True, text=True, timeout=900)
    runs = {Path(k).relative_to(NBS).as_posix(): v for k, v in json.loads(result.read_text()).items()} \
        if result.is_file() else {}
    problems = []
    for rel in NOTEBOOKS:
        run = runs.get(rel)
        if run is None:
            problems.append(f"{rel}: the virtual-CUDA worker died before it:\n{(proc.stdout + proc.stderr)[-3000:]}")
            continue
        broken = (f"breaks a CUDA device rule: {run['error']} (at {run['where']})" if not run["ok"] else
                  "sent nothing to the device: its `device` parameter is ignored"
                  if run["moves"] == 0 and rel not in CPU_BOUND else None)
        known = KNOWN_BUGS.get(rel) or IGNORES_DEVICE.get(rel)
        if broken and not known:
            problems.append(f"{rel} {broken}")
        elif known and not broken:
            problems.append(f"{rel} now keeps the device rules: remove it from the known list ({known})")
    assert not problems, "\n".join(problems)


RULES = r"""
import sys, torch
sys.path.insert(0, "tests")
import virtual_cuda as vc
vc.enable()
x = torch.randn(4).to("cuda")
assert x.device.type == "cuda" and x.is_cuda and (x * 2 + torch.tensor(1.0)).device.type == "cuda"
def refused(fn, kind):
    try:
        fn()
    except kind:
        return True
    return False
assert refused(lambda: x + torch.ones(4), vc.DeviceRuleError)  # CPU and device tensors never meet
assert refused(lambda: torch.bernoulli(x.sigmoid(), generator=torch.Generator().manual_seed(0)), vc.DeviceRuleError)
assert refused(lambda: torch.rand(3, generator=torch.Generator(device="cuda")), vc.DeviceRuleError)
assert refused(lambda: x.numpy(), TypeError) and refused(lambda: __import__("numpy").asarray(x), TypeError)
assert not refused(lambda: torch.rand(3, device="cuda", generator=torch.Generator(device="cuda")), Exception)
mask = torch.tensor([True, False, True, False]).to("cuda")
assert refused(lambda: x.__setitem__(mask, torch.zeros(2)), vc.DeviceRuleError)  # index_put_ with CPU values
assert refused(lambda: torch.zeros(4).__setitem__(torch.tensor([0, 1]), x[:2]), vc.DeviceRuleError)
assert refused(lambda: torch.zeros(4)[mask], vc.DeviceRuleError)  # CPU tensor, device indices
y = x.clone()
y[mask] = torch.tensor(0.0)  # a CPU scalar is moved
y[mask] = torch.zeros(2).to("cuda")
y[1:3] = torch.zeros(2)  # basic indexing copies across devices
y[torch.tensor([True, True, False, False])] = torch.ones(2).to("cuda")  # CPU indices of a device tensor
assert y.device.type == "cuda" and x[torch.tensor([0, 1])].device.type == "cuda"
net = torch.nn.Linear(4, 2).to("cuda")
assert refused(lambda: net(torch.randn(4)), vc.DeviceRuleError) and net(x).device.type == "cuda"
net(x).sum().backward()
assert net.weight.grad.device.type == "cuda" and x.cpu().numpy().shape == (4,)
from gcelib.merging.task_vectors import dare  # issue 37 bug 1: a CPU generator seeds a device task vector
out = dare({"w": x}, 0.5, torch.Generator().manual_seed(0))
assert out["w"].device.type == "cuda"
print("rules ok")
"""


def test_virtual_cuda_enforces_the_rules():
    """The virtual CUDA refuses what CUDA refuses and accepts what it accepts (the check of the checker)."""
    proc = subprocess.run([sys.executable, "-c", RULES], cwd=ROOT, env=clean_env(), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0 and "rules ok" in proc.stdout, proc.stderr[-3000:]
