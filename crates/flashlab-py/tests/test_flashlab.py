"""Tests of the flashlab Python package (issue 20): a case, a sweep, DataFrames, the GIL
released while simulating, and the same tables from 1 thread, 2 threads and Ray.

Ray is a capability: without it these tests fail, unless FLASHLAB_TEST_SKIP names `ray`."""

import filecmp
import os
import shutil
import threading
from pathlib import Path

import pytest

import flashlab

DATA = Path(__file__).resolve().parents[2] / "flashlab-sweep" / "tests" / "data"


def skip_or_fail(capability: str, why: str) -> None:
    skip = [c.strip() for c in os.environ.get("FLASHLAB_TEST_SKIP", "").split(",")]
    if capability in skip or "all" in skip:
        print(f"SKIPPED: {why}")
        pytest.skip(why)
    pytest.fail(f"capability '{capability}' missing: {why} (or set FLASHLAB_TEST_SKIP={capability})")


def test_profiles_and_one_case():
    assert "toy" in flashlab.profiles()
    toy = flashlab.profile("toy")
    assert toy["ftl"]["spare_factor"] == pytest.approx(0.10)
    doc = flashlab.run(profile="toy", protocol=str(DATA / "small-age.toml"), seed=2, fs="ext4")
    assert doc["command"] == "age" and doc["parameters"]["filesystem"] == "ext4"
    assert doc["profile"]["name"] == "toy" and doc["schema_version"] == 1
    labels = [s["label"] for s in doc["results"]["steps"]]
    assert labels == ["new", "aged"]
    h = flashlab.headline(doc)
    assert h["aged.waf"] == pytest.approx(doc["results"]["steps"][1]["device"]["write_amplification"])
    # A modified profile: a dotted field. A smaller spare leaves GC more to copy.
    small = flashlab.run({"profile": "toy", "protocol": str(DATA / "small-age.toml"), "ftl.spare_factor": 0.1})
    large = flashlab.run({"profile": "toy", "protocol": str(DATA / "small-age.toml"), "ftl.spare_factor": 0.25})
    assert flashlab.headline(small)["gc_units_copied"] > flashlab.headline(large)["gc_units_copied"]
    with pytest.raises(ValueError, match="spare_factor"):
        flashlab.run(profile="toy", **{"ftl.spare_factor": 1.5})


def test_the_gil_is_released_while_simulating():
    done = []
    t = threading.Thread(target=lambda: done.append(flashlab.run(profile="toy", protocol="age-small")))
    t.start()
    spins = 0
    while t.is_alive():
        spins += 1
    t.join()
    assert done and done[0]["results"]["steps"]
    # Holding the GIL, the run would leave this thread a handful of switch intervals at most.
    assert spins > 10000, f"the main thread ran only {spins} loop turns during the simulation"


def test_sweep_rows_and_dataframes(tmp_path):
    spec = {
        "profile": "toy",
        "protocol": str(DATA / "small-age.toml"),
        "axes": {"fs": ["plain", "ext4"], "ftl.spare_factor": [0.1, 0.2], "seed": [1, 2]},
    }
    cases = flashlab.plan(spec)
    assert len(cases) == 8 and cases[1] == {**{"profile": "toy", "protocol": spec["protocol"]}, "fs": "plain", "ftl.spare_factor": 0.1, "seed": 2}
    res = flashlab.sweep(spec, tmp_path / "out", threads=2)
    assert res.summary["ran"] == 8 and res.summary["failed"] == 0
    rows = res.rows()
    assert [r["fs"] for r in rows] == ["plain"] * 4 + ["ext4"] * 4
    assert all(r["aged.rand_write_mbs"] > 0 for r in rows)
    assert res.case(3)["sweep_case"]["settings"]["seed"] == 2
    pd = pytest.importorskip("pandas")
    df = res.to_pandas()
    assert df.shape[0] == 8 and list(df.columns[:4]) == ["case", "fs", "ftl.spare_factor", "seed"]
    assert df.groupby("fs")["aged.waf"].mean().shape == (2,)
    pl = pytest.importorskip("polars")
    dp = res.to_polars()
    assert dp.shape == df.shape and dp.columns == list(df.columns)
    assert dp["aged.rand_write_p99_us"].to_list() == pytest.approx(df["aged.rand_write_p99_us"].tolist())
    assert dp.schema["seed"] == pl.Int64 and dp.schema["fs"] == pl.String
    # Resumed: nothing to do the second time.
    again = flashlab.sweep(spec, tmp_path / "out", threads=2)
    assert again.summary["ran"] == 0 and again.summary["skipped"] == 8
    # Without out=: a new temporary directory, named by the result, with the same table.
    quick = flashlab.sweep(spec, threads=2)
    try:
        assert quick.out.is_dir() and quick.out != tmp_path / "out"
        assert quick.summary["ran"] == 8 and quick.csv.read_bytes() == res.csv.read_bytes()
    finally:
        shutil.rmtree(quick.out)


def test_one_thread_two_threads_and_ray_give_the_same_files(tmp_path):
    try:
        import ray  # noqa: F401
    except ImportError as e:
        skip_or_fail("ray", f"cannot import ray: {e}")
    spec = DATA / "sweep24.toml"
    outs = [tmp_path / "t1", tmp_path / "t2", tmp_path / "ray"]
    flashlab.sweep(spec, outs[0], threads=1)
    flashlab.sweep(spec, outs[1], threads=2)
    r = flashlab.sweep(spec, outs[2], backend="ray")
    assert r.summary["ran"] == 24 and len(r) == 24
    for f in ["results.csv", "results.parquet"]:
        for o in outs[1:]:
            assert filecmp.cmp(outs[0] / f, o / f, shallow=False), f"{o / f} differs from 1 thread"
    names = sorted(p.name for p in (outs[0] / "cases").iterdir())
    assert len(names) == 24
    for n in names:
        assert filecmp.cmp(outs[0] / "cases" / n, outs[2] / "cases" / n, shallow=False), n
