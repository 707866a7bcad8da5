#!/usr/bin/env python3
"""Prepared check for a machine with an NVIDIA GPU: run the doctor, then sample the GPU at
10 Hz while idle, under a PyTorch matmul load, and idle again; save everything as a test
fixture (``tests/fixtures/gpu/recorded_<gpu>.json``) that tokcheck's unit tests then read.

Run from the repository root (tokcheck need not be installed; ``src/`` is put on the path):

    python scripts/gpu_check.py [--load-s 8] [--idle-s 1] [--out tests/fixtures/gpu]

Needs ``nvidia-ml-py`` and ``packaging``; PyTorch with CUDA for the load (without it, the
samples are idle only and the fixture says so). Prints the doctor's report and a summary.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from tokcheck.machine.doctor import environment_report  # noqa: E402
from tokcheck.machine.telemetry import GpuSampler  # noqa: E402


def matmul_load(seconds: float, size: int) -> dict:
    """Keep GPU 0 busy with bf16 matmuls for ``seconds``; what ran, or why it did not."""
    try:
        import torch
    except ImportError as err:
        return {"ran": False, "reason": f"no PyTorch: {err}"}
    if not torch.cuda.is_available():
        return {"ran": False, "reason": "PyTorch sees no GPU"}
    a = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
    torch.cuda.synchronize()
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(10):
            c = a @ b
        torch.cuda.synchronize()
        n += 10
    elapsed = time.perf_counter() - t0
    del a, b, c
    return {"ran": True, "kind": f"torch.matmul bf16 {size}x{size}", "matmuls": n,
            "seconds": elapsed, "tflops": 2 * size**3 * n / elapsed / 1e12,
            "torch": torch.__version__, "torch_cuda": torch.version.cuda,
            "max_memory_allocated_bytes": torch.cuda.max_memory_allocated()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--load-s", type=float, default=8.0)
    ap.add_argument("--idle-s", type=float, default=1.0)
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "fixtures" / "gpu")
    args = ap.parse_args()

    env = environment_report()
    try:
        from tokcheck.cli.doctor import render
        from tokcheck.machine.doctor import evaluate_checklist, gather_checklist_inputs

        render({"environment": env,
                "checklist": [asdict(c) for c in evaluate_checklist(
                    gather_checklist_inputs(env))]})
    except ImportError:  # rich missing: print JSON instead
        print(json.dumps(env, indent=2))
    if not env["gpu"].get("available"):
        print(f"no GPU: {env['gpu'].get('reason')}; nothing to record")
        return 1

    with GpuSampler(interval_s=0.1) as sampler:
        time.sleep(args.idle_s)
        e_load0 = sampler.read_energy()  # NVML's total-energy counter, mJ (None: not supported)
        t_load0 = time.perf_counter_ns()
        load = matmul_load(args.load_s, args.size)
        t_load1 = time.perf_counter_ns()
        e_load1 = sampler.read_energy()
        time.sleep(args.idle_s)
    summary_all = sampler.summary()
    summary_load = sampler.summary(sampler.samples_between(t_load0, t_load1))
    name = env["gpu"]["gpus"][0].get("name") or "gpu"
    slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    doc = {
        "provenance": f"recorded by scripts/gpu_check.py on {name} at "
                      f"{datetime.now(timezone.utc).isoformat(timespec='seconds')}",
        "recorded_on_real_gpu": True,
        "environment": env,
        "load": {**load, "idle_before_s": args.idle_s, "idle_after_s": args.idle_s,
                 "t_load_ns": [t_load0, t_load1]},
        "interval_s": sampler.interval_s,
        "nvml_errors": sampler.errors,
        "samples": [asdict(s) for s in sampler.samples],
        "summary_all": summary_all,
        "summary_load": summary_load,
    }
    if e_load0 and e_load1:
        doc["energy"] = {
            "note": "recorded: nvmlDeviceGetTotalEnergyConsumption (mJ) at the start and the end of the load",
            "compute_gpus": [0],  # the matmul load runs on cuda:0
            "readings": [{"t_ns": t_load0, "energy_mj": {str(k): v for k, v in e_load0.items()}},
                         {"t_ns": t_load1, "energy_mj": {str(k): v for k, v in e_load1.items()}}],
        }
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"recorded_{slug}.json"
    path.write_text(json.dumps(doc, indent=1))
    print(json.dumps({"load": load, "summary_load": summary_load}, indent=2))
    print(f"saved {len(sampler.samples)} samples to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
