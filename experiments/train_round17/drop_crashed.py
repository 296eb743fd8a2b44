"""Copy a label folder (``bgfast train labels``) without its drawn crashed positions.

The odd positions a block adds after its drawn ones (rows from ``DRAWN`` on, ``--odd``)
are kept whatever their class.  Round 17's R17 fit read L15 and L16 so, with the 1-ply
crashed labels of C1 in place of their 0-ply ones:

    python drop_crashed.py ../train_round15/L15 L15nc 560
    python drop_crashed.py ../train_round16/L16 L16nc 560
"""
import shutil
import sys
from pathlib import Path

import numpy as np

from bgfast.position_class import PositionClass


def main() -> None:
    src, dst, drawn = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    crashed = list(PositionClass).index(PositionClass("crashed"))
    dst.mkdir(exist_ok=True)
    shutil.copy(src / "labels.json", dst / "labels.json")
    kept = total = 0
    for block in sorted(src.glob("block-*.npz")):
        with np.load(block) as data:
            arrays = {key: data[key] for key in data.files}
        n = len(arrays["classes"])
        keep = (arrays["classes"] != crashed) | (np.arange(n) >= drawn)
        np.savez(dst / block.name, **{key: value[keep] for key, value in arrays.items()})
        kept += int(keep.sum())
        total += n
    print(f"{dst}: {kept:,} of {total:,} positions kept")


if __name__ == "__main__":
    main()
