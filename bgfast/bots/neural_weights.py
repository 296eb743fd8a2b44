"""The neural net's weights file: reading, writing and checking it.

Layout (all integers and floats little-endian)::

    offset  size  content
    0       8     magic b"BGFNEURL"
    8       4     format version, uint32 (this is version 1)
    12      4     n, the length of the header, uint32
    16      n     header: UTF-8 JSON, {"inputs", "outputs", "activation", "nets":
                  {"contact": {"hidden"}, "race": {"hidden"}, "backgame": {"hidden"},
                  "crashed": {"hidden"}},
                  "arrays": [{"name", "shape"}, ...], "meta": {...}} -- the
                  architecture, the arrays in payload order, and free-form facts
                  (training games, seed...)
    16 + n  4 k   the arrays, float32, C order, one after the other (k floats in all)
    end-32  32    SHA-256 of every byte before it

The arrays are ``w1``, ``b1``, ``w2`` and ``b2`` of each net of
:data:`bgfast._core.neural.NETS` (``contact.w1``...).  A file written before the
backgame net existed has only the contact and race nets' arrays, and one written before
the crashed net existed has no crashed net's; such a file still reads, and its missing
backgame and crashed nets are copies of its contact net (the net it used for those
positions), so it plays exactly as it did.  Version 1 holds all three kinds of file.

A file may also hold the search's pruning nets (:mod:`bgfast.train.prune`), distilled
from its nets: ``contact.prune.w1``... (``w1`` ``RAW_INPUTS`` x h), one for each of its
nets or none, the header's ``nets`` naming ``"prune": {"hidden": h}``; a missing crashed
net's pruning net is a copy of the contact net's.  Without them the search values
every play (a file written before them, or one whose nets were trained since).

A file that is missing, is not a regular file, is larger than the largest net's file
(:data:`MAX_FILE_BYTES`), does not parse, is truncated, fails its checksum, holds values
that are not finite (NaN, infinity) or describes an
architecture this version of bgfast does not evaluate (or one its header's ``nets``
does not describe) raises
:class:`~bgfast.errors.InvalidWeightsError` (a ``ValueError``).  Files are written
atomically (a temporary file in the same folder, then renamed), so a reader never
sees half a file.
"""
from __future__ import annotations

import hashlib
import json
import os
import struct
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bgfast._core import neural as _neural
from bgfast.errors import InvalidWeightsError
from bgfast.validation import read_input_file, write_output_file

__all__ = ["MAGIC", "MAX_FILE_BYTES", "MAX_HEADER_BYTES", "VERSION", "Weights", "default_weights_path", "read_weights", "write_weights",
           "decode_weights", "encode_weights"]

MAGIC = b"BGFNEURL"
VERSION = 1
_DIGEST = 32
_PREFIX = struct.Struct("<8sII")


def default_weights_path() -> Path:
    """The shipped weights: ``bgfast/data/weights/neural.bgw`` (see ``neural.md`` beside it)."""
    return Path(__file__).resolve().parents[1] / "data" / "weights" / "neural.bgw"


_PARTS = ("w1", "b1", "w2", "b2")
_ADDED_NETS = ("backgame", "crashed")
"""The nets added after the first files were written, oldest first: a file may lack the last ones."""
_RACE_ROWS = _neural.INPUTS + _neural.RACE_INPUTS
_OLD_RACE_ROWS = (_neural.INPUTS, _neural.INPUTS + _neural.RACE_HOME_INPUTS)
"""The first-layer rows of an older file's race net: before its own inputs (round 11 and
before), and before its estimated ones (rounds 12 to 18)."""


class Weights:
    """A net's arrays and the facts recorded with them.

    :ivar arrays: ``{name: float32 array}`` in the model's order (see
        :meth:`bgfast._core.neural.Model.shapes`).  Given the contact net's arrays without
        any of the backgame net's (or of the crashed net's), those are copies of the contact
        net's, its pruning net's too, as when reading a file written before that net existed;
        a race net without rows for its own inputs (``RACE_INPUTS``, a file written before
        them), or for the estimated ones among them (after ``RACE_HOME_INPUTS``, a file of
        rounds 12 to 18), gets rows of zeros, so that it values every position as it did.
    :ivar meta: free-form JSON-able facts (training games, seeds, strength...).
    """

    def __init__(self, arrays: dict[str, NDArray[np.float32]], meta: dict[str, Any] | None = None) -> None:
        self.arrays = {name: np.ascontiguousarray(a, dtype=np.float32) for name, a in arrays.items()}
        for net in _ADDED_NETS:
            for source in ("contact", "contact.prune"):
                target = net + source[len("contact"):]
                if (all(f"{source}.{part}" in self.arrays for part in _PARTS)
                        and not any(f"{target}.{part}" in self.arrays for part in _PARTS)):
                    for part in _PARTS:
                        self.arrays[f"{target}.{part}"] = self.arrays[f"{source}.{part}"].copy()
        race = self.arrays.get("race.w1")
        if race is not None and race.ndim == 2 and race.shape[0] in _OLD_RACE_ROWS:
            self.arrays["race.w1"] = np.concatenate(
                [race, np.zeros((_RACE_ROWS - race.shape[0], race.shape[1]), dtype=np.float32)])
        order = {name: k for k, name in enumerate(_array_names())}
        self.arrays = dict(sorted(self.arrays.items(), key=lambda item: order.get(item[0], len(order))))
        self.meta = dict(meta or {})

    def same_net(self, net: str, other: str) -> bool:
        """Whether the weights hold the nets ``net`` and ``other`` (``"crashed"``,
        ``"contact.prune"``...) and their arrays are equal, value for value."""
        pairs = [(self.arrays.get(f"{net}.{part}"), self.arrays.get(f"{other}.{part}")) for part in _PARTS]
        return all(a is not None and b is not None and np.array_equal(a, b) for a, b in pairs)

    @classmethod
    def of(cls, model: _neural.Model, meta: dict[str, Any] | None = None) -> Weights:
        """The weights of ``model`` now."""
        return cls(model.get_weights(), meta)

    def nets_only(self) -> Weights:
        """These weights without their pruning nets (and their ``prune`` meta facts): where
        the nets are trained further, pruning nets distilled from the old ones no longer fit."""
        return Weights({name: a for name, a in self.arrays.items() if ".prune." not in name},
                       {key: value for key, value in self.meta.items() if key != "prune"})

    @property
    def prune_hidden(self) -> int:
        """Hidden units of the pruning nets, 0 without them."""
        b1 = self.arrays.get("contact.prune.b1")
        return 0 if b1 is None else int(b1.shape[0])

    @property
    def hidden(self) -> tuple[int, int, int, int]:
        """Hidden units of the (contact, race, backgame, crashed) nets (the order of
        :data:`bgfast._core.neural.NETS`).

        :raises KeyError: a net's ``b1`` array is missing."""
        contact, race, backgame, crashed = (int(self.arrays[f"{net}.b1"].shape[0]) for net in _neural.NETS)
        return contact, race, backgame, crashed

    def model(self) -> _neural.Model:
        """A new :class:`~bgfast._core.neural.Model` holding these weights.

        :raises InvalidWeightsError: arrays that do not fit the architecture, or some of the
            pruning nets' arrays without the others.
        """
        prune = {f"{net}.prune.{part}" for net in _neural.NETS for part in _PARTS}
        given = prune & set(self.arrays)
        if given and given != prune:
            raise InvalidWeightsError(f"the weights have some of the pruning nets' arrays, not all: "
                                      f"no {sorted(prune - given)}")
        try:
            contact, race, backgame, crashed = self.hidden
            model = _neural.Model(contact, race, backgame, crashed_hidden=crashed, prune_hidden=self.prune_hidden)
            model.set_weights(self.arrays)
        except KeyError as exc:
            raise InvalidWeightsError(f"the weights do not fit the net: no array {exc}") from None
        except ValueError as exc:
            raise InvalidWeightsError(f"the weights do not fit the net: {exc}") from None
        return model


def _array_names() -> list[str]:
    """Every array's name in the model's order: each net's, then each pruning net's."""
    return ([f"{net}.{part}" for net in _neural.NETS for part in _PARTS]
            + [f"{net}.prune.{part}" for net in _neural.NETS for part in _PARTS])


_MAX_DIM = 1 << 16
"""The largest dimension of an array a weights file may declare."""

MAX_HEADER_BYTES = 1 << 20
"""The longest JSON header :func:`read_weights` reads (the shipped file's is some 10 kB)."""

MAX_FILE_BYTES = (_PREFIX.size + MAX_HEADER_BYTES + _DIGEST
                  + 4 * sum(int(np.prod(shape)) for shape in
                            _neural.Model(_neural.MAX_HIDDEN, _neural.MAX_HIDDEN,
                                          prune_hidden=_neural.PRUNE_MAX_HIDDEN).shapes().values()))
"""The largest weights file :func:`read_weights` reads: the header at its longest and the
arrays of the largest net this version evaluates (every net of ``MAX_HIDDEN`` units)."""


def _nets_header(arrays: dict[str, NDArray[np.float32]]) -> dict[str, dict[str, int]]:
    """The header's ``nets``: the hidden units of each net ``arrays`` holds, and of the
    pruning nets if it holds them."""
    return {name: {"hidden": int(arrays[f"{net}.b1"].shape[0])}
            for net, name in [(net, net) for net in _neural.NETS] + [("contact.prune", "prune")]
            if f"{net}.b1" in arrays}


def _written_arrays(weights: Weights) -> dict[str, NDArray[np.float32]]:
    """The arrays a file of ``weights`` holds: all of them, less the newest nets (with their
    pruning nets) that are copies of the contact net's and the race net's rows of its
    estimated inputs when they are all zero, as reading an older file makes them and reading
    fills them in again: a file read and written again is the same file."""
    arrays = dict(weights.arrays)
    race = arrays.get("race.w1")
    if race is not None and race.shape[0] == _RACE_ROWS and not race[_OLD_RACE_ROWS[-1]:].any():
        arrays["race.w1"] = race[:_OLD_RACE_ROWS[-1]]
    for net in reversed(_ADDED_NETS):
        pairs = [(net, "contact")] + ([(f"{net}.prune", "contact.prune")] if f"{net}.prune.b1" in arrays else [])
        if not all(weights.same_net(target, source) for target, source in pairs):
            break
        for target, _ in pairs:
            for part in _PARTS:
                del arrays[f"{target}.{part}"]
    return arrays


def encode_weights(weights: Weights) -> bytes:
    """The file's bytes for ``weights`` (a file read and not changed is written as it was:
    a net that is a copy of the contact net is left out, and reading fills it in).

    :raises InvalidWeightsError: a header (the ``meta`` facts) longer than
        :data:`MAX_HEADER_BYTES`, or meta facts that are not plain JSON (numpy numbers,
        sets): such a file could not be read back.
    """
    arrays = _written_arrays(weights)
    header = {
        "inputs": _neural.INPUTS,
        "outputs": len(_neural.OUTPUTS),
        "activation": "sigmoid",
        "nets": _nets_header(arrays),
        "arrays": [{"name": name, "shape": list(a.shape)} for name, a in arrays.items()],
        "meta": weights.meta,
    }
    try:
        text = json.dumps(header, sort_keys=True).encode("utf-8")
    except (TypeError, ValueError) as exc:   # numpy numbers, sets: not JSON
        raise InvalidWeightsError(f"the weights' meta facts are not plain JSON: {exc}") from None
    if len(text) > MAX_HEADER_BYTES:
        raise InvalidWeightsError(f"the weights' header is {len(text):,} bytes, more than a weights file "
                                  f"holds ({MAX_HEADER_BYTES:,} at most): shorten the meta facts")
    body = _PREFIX.pack(MAGIC, VERSION, len(text)) + text
    body += b"".join(a.astype("<f4").tobytes() for a in arrays.values())
    return body + hashlib.sha256(body).digest()


def decode_weights(data: bytes, source: str = "weights") -> Weights:
    """Parse the file's bytes ``data`` (``source`` names it in errors).

    :raises InvalidWeightsError: see the module docstring.
    """
    if len(data) < _PREFIX.size + _DIGEST:
        raise InvalidWeightsError(f"{source}: {len(data)} bytes is too short for a weights file")
    magic, version, n = _PREFIX.unpack_from(data)
    if magic != MAGIC:
        raise InvalidWeightsError(f"{source}: not a bgfast weights file (magic {magic!r}, expected {MAGIC!r})")
    if version != VERSION:
        raise InvalidWeightsError(f"{source}: weights format version {version}, this bgfast reads {VERSION}")
    body, digest = data[:-_DIGEST], data[-_DIGEST:]
    if hashlib.sha256(body).digest() != digest:
        raise InvalidWeightsError(f"{source}: the checksum does not match: the file is truncated or damaged")
    try:
        header = json.loads(body[_PREFIX.size:_PREFIX.size + n].decode("utf-8"))
        specs = [(str(a["name"]), tuple(int(d) for d in a["shape"])) for a in header["arrays"]]
        inputs, outputs = int(header["inputs"]), int(header["outputs"])
        meta = dict(header.get("meta", {}))
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        raise InvalidWeightsError(f"{source}: the header does not parse: {exc}") from None
    if inputs != _neural.INPUTS or outputs != len(_neural.OUTPUTS) or header.get("activation") != "sigmoid":
        raise InvalidWeightsError(f"{source}: a net of {inputs} inputs, {outputs} outputs "
                                  f"({header.get('activation')!r}); this bgfast evaluates "
                                  f"{_neural.INPUTS} inputs, {len(_neural.OUTPUTS)} outputs ('sigmoid')")
    offset = _PREFIX.size + n
    arrays: dict[str, NDArray[np.float32]] = {}
    for name, shape in specs:
        if not shape or any(d < 1 or d > _MAX_DIM for d in shape):
            raise InvalidWeightsError(f"{source}: array {name!r} has the shape {list(shape)}")
        size = int(np.prod(shape)) * 4
        if offset + size > len(body):
            raise InvalidWeightsError(f"{source}: array {name!r} runs past the end of the file")
        arrays[name] = np.frombuffer(body, dtype="<f4", count=size // 4, offset=offset).reshape(shape).astype(np.float32)
        if not np.isfinite(arrays[name]).all():
            bad = int((~np.isfinite(arrays[name])).sum())
            raise InvalidWeightsError(f"{source}: array {name!r} holds {bad} "
                                      f"{'values that are' if bad > 1 else 'value that is'} not finite "
                                      "(NaN or infinity)")
        offset += size
    if offset != len(body):
        raise InvalidWeightsError(f"{source}: {len(body) - offset} bytes after the last array")
    # every net; or, in an older file, those before the crashed net, or before the backgame net
    # (pruning nets came after the backgame net)
    layouts = []
    for kind in (_neural.NETS, _neural.NETS[:3], _neural.NETS[:2]):
        nets = {f"{net}.{part}" for net in kind for part in _PARTS}
        layouts += [nets] + ([nets | {f"{net}.prune.{part}" for net in kind for part in _PARTS}] if len(kind) > 2 else [])
    if set(arrays) not in layouts:
        closest = min(layouts, key=lambda layout: len(layout ^ set(arrays)))
        missing, extra = sorted(closest - set(arrays)), sorted(set(arrays) - closest)
        raise InvalidWeightsError(
            f"{source}: the arrays are not a net's: " + "; ".join(
                text for text in (f"missing {', '.join(missing)}" if missing else "",
                                  f"unexpected {', '.join(extra)}" if extra else "") if text)
            + f" (a file holds w1, b1, w2 and b2 of the nets {', '.join(_neural.NETS)}, or in an older file of "
              f"the first three or two; with four or three, a pruning net for each or none: NET.prune.w1...)")
    weights = Weights(arrays, meta)
    try:
        weights.model()                  # the shapes fit the architecture
    except ValueError as exc:
        raise InvalidWeightsError(f"{source}: the arrays do not fit the architecture: {exc}") from None
    if "nets" in header and header["nets"] != _nets_header(arrays):
        raise InvalidWeightsError(f"{source}: the header's nets {header['nets']} do not match its arrays' "
                                  f"{_nets_header(arrays)}")
    return weights


def read_weights(path: str | os.PathLike[str] | None = None) -> Weights:
    """Read a weights file (the shipped one by default).

    :raises InvalidWeightsError: see the module docstring; also a file that is missing or
        cannot be read (the system's reason in the message), that is not a regular file
        (``/dev/zero``, a folder), or that is larger than :data:`MAX_FILE_BYTES`.
    """
    p = Path(path) if path is not None else default_weights_path()
    data = read_input_file(p, "neural weights", limit=MAX_FILE_BYTES, error=InvalidWeightsError)
    return decode_weights(data, str(p))


def write_weights(path: str | os.PathLike[str], weights: Weights) -> None:
    """Write ``weights`` to ``path`` atomically and durably (:func:`bgfast.validation.output_file`:
    a temporary file beside it, synced to the disk, renamed into place).

    :raises InvalidWeightsError: an array holds a value that is not finite (a diverged
        training run), a header too long (see :func:`encode_weights`), or arrays that do not
        fit the architecture: whatever :func:`read_weights` would refuse is not written.
    :raises OutputFileError: the file cannot be written (nothing is written).
    """
    for name, array in weights.arrays.items():
        if not np.isfinite(array).all():
            raise InvalidWeightsError(f"{path}: array {name!r} holds values that are not finite (NaN or "
                                      "infinity); not written")
    data = encode_weights(weights)
    decode_weights(data, f"{path} (not written)")     # what reading would refuse is not written
    write_output_file(path, data, "neural weights", sync=True)
