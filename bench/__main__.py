"""``python -m bench NAME``: run one benchmark module of this package (``bench/NAME.py``)."""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
from pathlib import Path

# CPU seconds are compared, so BLAS runs on one thread, before numpy is loaded.
# A multi-threaded OpenBLAS (librosa's calls use it) leaves its workers spinning
# for a while after each call, and ``time.process_time`` counts them against
# whatever is timed next: on madmom's sample (2.8 s) timed right after librosa,
# ours read 0.023 CPU seconds per second of audio, 0.0125 with one thread;
# librosa's own 0.0039, 0.0026.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


def main(argv: list[str]) -> int:
    names = sorted(
        m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)])
        if not m.name.startswith("_")
    )
    if not argv or argv[0] not in names:
        print(f"usage: python -m bench {{{'|'.join(names)}}} [options]", file=sys.stderr)
        return 2
    module = importlib.import_module(f"bench.{argv[0]}")
    return int(module.main(argv[1:]) or 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
