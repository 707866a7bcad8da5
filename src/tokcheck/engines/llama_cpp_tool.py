"""llama.cpp's own tools, reached through llama-cpp-python's low-level bindings. Run with the
llama.cpp environment's Python (tokcheck's own environment does not have llama-cpp-python):

    python -P llama_cpp_tool.py info
    python -P llama_cpp_tool.py quantize IN.gguf OUT.gguf TYPE [--threads N]
    python -P llama_cpp_tool.py check F16.gguf WORK_DIR

(``-P``: this folder must not come first on ``sys.path``, where tokcheck's own ``llama_cpp.py``
would hide the ``llama_cpp`` package.)

``info`` prints one JSON line: the package version and ``llama_print_system_info()``.
``quantize`` runs ``llama_model_quantize`` with llama.cpp's default parameters and ``TYPE`` a
``LLAMA_FTYPE_MOSTLY_<TYPE>`` name (Q8_0, Q4_K_M, Q4_0, Q6_K …); llama.cpp writes its per-tensor
log to the C stderr. ``check`` quantizes an F16 file to Q8_0 and Q4_K_M and decodes a few tokens
from each of the three: a build whose quantized matrix kernels crash (the AMX kernels on some
virtual machines, ``docs/engines.md``) fails here with a signal, while an F16 decode alone would
pass. Each prints one JSON line on stdout. This file imports nothing from tokcheck.
"""

import json
import os
import sys
import time


def _ftype(llama_cpp, name: str) -> int:
    key = name.upper()
    for attr in (f"LLAMA_FTYPE_MOSTLY_{key}", f"LLAMA_FTYPE_{key}", f"LLAMA_FTYPE_ALL_{key}"):
        if hasattr(llama_cpp, attr):
            return int(getattr(llama_cpp, attr))
    known = sorted(a.removeprefix("LLAMA_FTYPE_MOSTLY_") for a in dir(llama_cpp)
                   if a.startswith("LLAMA_FTYPE_MOSTLY_"))
    raise SystemExit(f"unknown quantization type {name!r}; llama.cpp knows {', '.join(known)}")


def info() -> dict:
    import llama_cpp

    return {"version": llama_cpp.__version__,
            "system_info": llama_cpp.llama_print_system_info().decode(errors="replace").strip()}


def quantize(src: str, dst: str, type_name: str, threads: int = 0) -> dict:
    import llama_cpp

    if not os.path.isfile(src):
        raise SystemExit(f"no such file: {src}")
    llama_cpp.llama_backend_init()
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = _ftype(llama_cpp, type_name)
    params.nthread = threads
    t0 = time.perf_counter()
    rc = llama_cpp.llama_model_quantize(src.encode(), dst.encode(), params)
    seconds = time.perf_counter() - t0
    sys.stderr.flush()
    if rc != 0:
        raise SystemExit(f"llama_model_quantize returned {rc} for {src} → {type_name}")
    return {"type": type_name.upper(), "ftype": int(params.ftype), "seconds": round(seconds, 3),
            "in_bytes": os.path.getsize(src), "out_bytes": os.path.getsize(dst)}


def decode(path: str, n: int = 4) -> list[int]:
    """Greedy ids of ``n`` tokens after the first byte token, through ``llama_cpp.Llama``."""
    import llama_cpp

    llm = llama_cpp.Llama(model_path=path, n_ctx=64, n_threads=1, n_batch=32, verbose=False)
    ids = []
    llm.eval([ord("a")])
    for _ in range(n):
        tok = int(llm.sample(temp=0.0))
        ids.append(tok)
        llm.eval([tok])
    return ids


def check(f16: str, work: str) -> dict:
    out = {"decoded": {}}
    out.update(info())
    files = {"F16": f16}
    for t in ("Q8_0", "Q4_K_M"):
        files[t] = os.path.join(work, f"check-{t.lower()}.gguf")
        quantize(f16, files[t], t)
    for t, path in files.items():
        out["decoded"][t] = decode(path)
    return out


def main(argv: list[str]) -> int:
    if not argv:
        raise SystemExit(__doc__)
    cmd, args = argv[0], argv[1:]
    if cmd == "info":
        res = info()
    elif cmd == "quantize":
        threads = 0
        if "--threads" in args:
            i = args.index("--threads")
            threads = int(args[i + 1])
            args = args[:i] + args[i + 2:]
        res = quantize(*args[:3], threads=threads)
    elif cmd == "check":
        res = check(args[0], args[1])
    else:
        raise SystemExit(f"unknown command {cmd!r}")
    print(json.dumps(res), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
