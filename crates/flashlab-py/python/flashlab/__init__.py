"""flashlab: simulate flash storage (eMMC, UFS, NVMe) from Python.

The same library as the ``flashlab`` command runs here, in-process (the GIL is released while a
device is simulated):

>>> import flashlab
>>> doc = flashlab.run(profile="toy", protocol="four-corner", seed=1, **{"ftl.spare_factor": 0.2})
>>> doc["results"]["steps"][0]["rand_write_mbs"]           # doctest: +SKIP
>>> res = flashlab.sweep("sweep.toml", out="out")          # all local cores
>>> df = res.to_pandas()                                   # or res.to_polars()
>>> res = flashlab.sweep("sweep.toml", out="out", backend="ray")   # tasks on a Ray cluster

A sweep is a TOML file (or a dict of the same shape): fixed settings, ``[axes]`` crossed as a
Cartesian product, and ``[[case]]`` tables; see docs/sweep.md. Its results go to a directory:
``results.csv``, ``results.parquet`` (one row per case) and ``cases/NNNN.json`` (each case's
full results document); running it again skips the finished cases.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native

__all__ = [
    "__version__",
    "profiles",
    "profile",
    "run",
    "headline",
    "plan",
    "sweep",
    "results",
    "SweepSpec",
    "SweepResult",
]

__version__: str = _native.version()

SpecLike = Union[str, "os.PathLike[str]", Mapping[str, Any], "SweepSpec"]


def profiles() -> List[str]:
    """The names of the built-in device profiles (``toy``, ``emmc-16g``, ``nexus7-2012``...)."""
    return list(_native.profile_names())


def profile(name: str) -> Dict[str, Any]:
    """A device profile as a dict of its TOML tables (``nand``, ``ftl``, ``host``...).

    ``name`` is a built-in profile or a path to a profile TOML file. To run a modified profile,
    give its fields as dotted settings to :func:`run` or in a sweep (``"ftl.spare_factor"``).
    """
    return json.loads(_native.profile_json(str(name)))


def _toml_value(v: Any, where: str) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"{where}: {v} is not a finite number")
        return repr(v)
    if isinstance(v, (str, os.PathLike)):
        return json.dumps(os.fspath(v))  # a JSON string is a TOML basic string
    raise TypeError(f"{where}: expected a string, number or boolean, got {type(v).__name__}")


def _toml_key(k: str) -> str:
    return json.dumps(str(k))


def _to_toml(spec: Mapping[str, Any]) -> str:
    """The TOML text of a sweep given as a dict, keys in the dict's order."""
    lines: List[str] = []
    tail: List[str] = []
    for k, v in spec.items():
        if k == "axes":
            if not isinstance(v, Mapping):
                raise TypeError("'axes' must be a dict of lists")
            tail.append("[axes]")
            for ak, av in v.items():
                if isinstance(av, (str, bytes)) or not isinstance(av, Sequence):
                    raise TypeError(f"axis '{ak}': expected a list of values")
                tail.append(f"{_toml_key(ak)} = [{', '.join(_toml_value(x, f'axis {ak}') for x in av)}]")
        elif k == "case":
            for c in v:
                tail.append("[[case]]")
                tail.extend(f"{_toml_key(ck)} = {_toml_value(cv, f'case {ck}')}" for ck, cv in c.items())
        else:
            lines.append(f"{_toml_key(k)} = {_toml_value(v, k)}")
    return "\n".join(lines + tail) + "\n"


class SweepSpec:
    """A sweep: its TOML text, the name errors give it, and the directory its relative paths
    (protocol, profile and usage files) are read from. Three strings, so a Ray worker can
    rebuild it exactly."""

    def __init__(self, text: str, source: str = "<sweep>", base_dir: Union[str, "os.PathLike[str]"] = ".") -> None:
        self.text = text
        self.source = source
        self.base_dir = os.fspath(base_dir)

    @classmethod
    def of(cls, spec: SpecLike) -> "SweepSpec":
        """From a path to a sweep file, a dict of the same shape, or a SweepSpec."""
        if isinstance(spec, SweepSpec):
            return spec
        if isinstance(spec, Mapping):
            return cls(_to_toml(spec), "<sweep dict>", os.getcwd())
        path = Path(os.fspath(spec))
        return cls(path.read_text(), str(path), str(path.parent))

    @property
    def args(self) -> Tuple[str, str, str]:
        return (self.text, self.source, self.base_dir)


def plan(spec: SpecLike) -> List[Dict[str, Any]]:
    """The cases of a sweep, each a dict of its settings; raises ValueError on bad input."""
    return json.loads(_native.plan(*SweepSpec.of(spec).args))["cases"]


def run(settings: Optional[Mapping[str, Any]] = None, **kw: Any) -> Dict[str, Any]:
    """Run one case in-process and return its results document as a dict.

    Settings are those of a sweep file: ``profile`` (default ``nexus7-2012``), ``seed``,
    ``fs`` (``"ext4"``, ``"f2fs,discard"``...), dotted profile fields (``"ftl.spare_factor"``),
    and ``protocol`` (default ``four-corner``; with ``rand_io``) or ``usage`` for a life run
    (with ``policy``, ``duration``, ``scale``). Relative paths are read from the current
    directory. The GIL is released while the device is simulated.
    """
    s: Dict[str, Any] = dict(settings or {})
    s.update(kw)
    spec = SweepSpec(_to_toml(s), "<flashlab.run>", os.getcwd())
    doc = json.loads(_native.run_case(*spec.args, 0))
    doc.pop("sweep_case", None)
    if "error" in doc:
        raise RuntimeError(doc["error"])
    return doc


def headline(doc: Mapping[str, Any]) -> Dict[str, Optional[float]]:
    """The headline numbers of a results document, as the sweep table's columns."""
    return dict(json.loads(_native.headline(json.dumps(doc))))


class SweepResult:
    """The results of a sweep in a directory: ``rows()`` as dicts, ``to_pandas()``,
    ``to_polars()``; ``csv`` and ``parquet`` are the table's files, ``cases_dir`` holds each
    case's full results document, ``summary`` what the run did."""

    def __init__(self, spec: SweepSpec, out: Union[str, "os.PathLike[str]"], summary: Optional[Dict[str, Any]] = None) -> None:
        self.spec = spec
        self.out = Path(os.fspath(out))
        self.summary: Dict[str, Any] = summary or {}
        t = json.loads(_native.table(*spec.args, str(self.out)))
        self.columns: List[str] = t["columns"]
        self._rows: List[List[Any]] = t["rows"]

    @property
    def csv(self) -> Path:
        return self.out / "results.csv"

    @property
    def parquet(self) -> Path:
        return self.out / "results.parquet"

    @property
    def cases_dir(self) -> Path:
        return self.out / "cases"

    def rows(self) -> List[Dict[str, Any]]:
        """One dict per case: its index, varying settings and headline numbers (None where
        the case has no such number)."""
        return [dict(zip(self.columns, r)) for r in self._rows]

    def case(self, index: int) -> Dict[str, Any]:
        """The full results document of case ``index``."""
        width = max(4, len(str(len(self._rows) - 1)))
        return json.loads((self.cases_dir / f"{index:0{width}d}.json").read_text())

    def to_pandas(self) -> Any:
        """The table as a pandas DataFrame (needs pandas)."""
        import pandas as pd

        return pd.DataFrame(self._rows, columns=self.columns)

    def to_polars(self) -> Any:
        """The table as a polars DataFrame (needs polars); the same as reading ``parquet``."""
        import polars as pl

        return pl.read_parquet(self.parquet)

    def __len__(self) -> int:
        return len(self._rows)

    def __repr__(self) -> str:
        return f"SweepResult({str(self.out)!r}, {len(self)} cases)"


def sweep(
    spec: SpecLike,
    out: Optional[Union[str, "os.PathLike[str]"]] = None,
    backend: str = "local",
    threads: Optional[int] = None,
    address: Optional[str] = None,
) -> SweepResult:
    """Run a sweep into ``out`` and return its results.

    ``out`` defaults to a new temporary directory (for a quick look; it is kept, and the
    result's ``out`` names it). ``backend="local"`` runs the cases on ``threads`` threads
    (default: one per core) with the GIL released; ``backend="ray"`` runs each case as a Ray
    task on the cluster at ``address`` (default: ``ray.init()``'s own choice — a running
    cluster, else a local instance). Both write the same files, byte for byte; cases already in
    ``out`` are skipped.
    """
    s = SweepSpec.of(spec)
    if out is None:
        import tempfile

        out = tempfile.mkdtemp(prefix="flashlab-sweep-")
    if backend == "local":
        if address is not None:
            raise ValueError("address applies to backend='ray'")
        summary = json.loads(_native.sweep_local(*s.args, os.fspath(out), int(threads or 0)))
    elif backend == "ray":
        if threads is not None:
            raise ValueError("threads applies to backend='local'; Ray's workers run the cases")
        from .ray_sweep import run_on_ray

        summary = run_on_ray(s, out, address)
    else:
        raise ValueError(f"backend '{backend}': expected 'local' or 'ray'")
    return SweepResult(s, out, summary)


def results(spec: SpecLike, out: Union[str, "os.PathLike[str]"]) -> SweepResult:
    """The results of a sweep already run into ``out`` (every case must be finished)."""
    return SweepResult(SweepSpec.of(spec), out)
