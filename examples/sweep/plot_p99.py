"""Sweep spare factor x trim policy x filesystem on a phone profile for a simulated year and
plot the random-write p99 at the end (docs/sweep.md).

    python3 examples/sweep/plot_p99.py [--ray ADDRESS] [--out DIR]

Needs the flashlab package (pip install ./crates/flashlab-py), pandas and matplotlib; with
--ray, ray (and the package on every node of the cluster).
"""

import argparse
from pathlib import Path

import flashlab

HERE = Path(__file__).resolve().parent


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--out", default="phone-year.out")
    p.add_argument("--ray", metavar="ADDRESS", help="run on the Ray cluster at ADDRESS ('local' starts one)")
    a = p.parse_args()
    if a.ray:
        res = flashlab.sweep(HERE / "phone-year.toml", a.out, backend="ray", address=a.ray)
    else:
        res = flashlab.sweep(HERE / "phone-year.toml", a.out)
    print(f"{len(res)} cases: {res.summary}")
    df = res.to_pandas()
    cols = ["fs", "policy", "ftl.spare_factor", "rand_write_p99_us", "rand_write_mbs", "waf", "deleted_valid_gb"]
    print(df[cols].sort_values(cols[:3]).to_string(index=False))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, (fs, part) in zip(axes, df.groupby("fs")):
        for policy, g in part.groupby("policy", sort=False):
            g = g.sort_values("ftl.spare_factor")
            ax.plot(g["ftl.spare_factor"], g["rand_write_p99_us"] / 1000, marker="o", label=policy)
        ax.set_title(f"{fs}")
        ax.set_xlabel("spare factor")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("4 KiB random-write p99 after a year (ms)")
    axes[0].legend(title="trim policy")
    fig.suptitle("Moto X (2013) profile, light-phone usage, 12 months")
    fig.tight_layout()
    png = Path(a.out) / "p99.png"
    fig.savefig(png, dpi=110)
    print(f"plot: {png}")


if __name__ == "__main__":
    main()
