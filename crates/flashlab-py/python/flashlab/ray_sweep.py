"""The Ray backend of flashlab sweeps: each pending case is a Ray task that runs it in-process
with the flashlab package (the same Rust library as the CLI) and returns its results document
as text; the driver stores each document as it arrives and writes the tables at the end, with
the same functions as a local sweep, so the files are the same byte for byte.

From Python: ``flashlab.sweep(spec, out, backend="ray", address=...)``.
From the shell (what ``flashlab sweep SWEEP.toml --out DIR --ray ADDRESS`` runs)::

    python3 -m flashlab.ray_sweep SWEEP.toml --out DIR --address ADDRESS

``ADDRESS`` is a Ray address (``auto``, ``ray://head:10001``, ``head:6379``) or ``local`` for a
Ray instance started for this sweep. Every node needs the flashlab package installed, and the
files the sweep names (protocols, profiles, usage models) at the same paths.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, Dict, Optional, Tuple, Union

from . import SweepSpec, _native


def _run_case(text: str, source: str, base_dir: str, index: int) -> Tuple[int, str]:
    return index, _native.run_case(text, source, base_dir, index)


def run_on_ray(spec: SweepSpec, out: Union[str, "os.PathLike[str]"], address: Optional[str] = None, progress: bool = False) -> Dict[str, Any]:
    """Run the pending cases of ``spec`` as Ray tasks, store them in ``out``, write the tables;
    returns a summary like the local backend's."""
    import ray

    start = time.monotonic()
    out = os.fspath(out)
    n_cases = len(json.loads(_native.plan(*spec.args))["cases"])  # bad input fails here
    todo = _native.pending(*spec.args, out)
    started_here = False
    if not ray.is_initialized():
        if address in (None, "local"):
            ray.init(include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
        started_here = True
    try:
        task = ray.remote(num_cpus=1)(_run_case)
        refs = [task.remote(*spec.args, i) for i in todo]
        done = 0
        while refs:
            ready, refs = ray.wait(refs, num_returns=1)
            for r in ready:
                index, doc = ray.get(r)
                _native.store_case(*spec.args, out, index, doc)
                done += 1
                if progress:
                    el = time.monotonic() - start
                    eta = el / done * (len(todo) - done)
                    print(f"\rsweep on ray: {done}/{len(todo)} cases, {el:.0f} s elapsed, eta {eta:.0f} s", end="", file=sys.stderr)
        if progress and todo:
            print(file=sys.stderr)
        workers = int(ray.cluster_resources().get("CPU", 0))
    finally:
        if started_here:
            ray.shutdown()
    csv, parquet = _native.write_tables(*spec.args, out)
    table = json.loads(_native.table(*spec.args, out))
    err = table["columns"].index("error") if "error" in table["columns"] else None
    failed = 0 if err is None else sum(1 for r in table["rows"] if r[err] is not None)
    return {
        "cases": n_cases,
        "ran": len(todo),
        "skipped": n_cases - len(todo),
        "failed": failed,
        "workers": workers,
        "wall_s": time.monotonic() - start,
        "csv": csv,
        "parquet": parquet,
    }


def main(argv: Optional[list] = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m flashlab.ray_sweep", description="Run a flashlab sweep on a Ray cluster.")
    p.add_argument("spec", help="the sweep file")
    p.add_argument("--out", required=True, help="the results directory")
    p.add_argument("--address", default="local", help="Ray address, or 'local' for an instance started here")
    a = p.parse_args(argv)
    try:
        s = run_on_ray(SweepSpec.of(a.spec), a.out, a.address, progress=sys.stderr.isatty())
    except (ValueError, OSError) as e:
        print(f"flashlab: error: {e}", file=sys.stderr)
        return 1
    print(
        f"flashlab sweep {a.spec}: {s['cases']} cases ({s['ran']} run on Ray with {s['workers']} CPUs, "
        f"{s['skipped']} already finished) in {s['wall_s']:.1f} s"
    )
    print(f"results: {s['csv']} and {s['parquet']}; each case's results in {a.out}/cases/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
