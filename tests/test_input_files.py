"""Every reader of a user's file refuses, in one line, a path that is not a regular file
(``/dev/zero``, a pipe, a folder) and a file larger than its format can be, through the one
check :func:`bgfast.validation.read_input_file`; and match files are read in the encoding
that saved them (:func:`bgfast.formats.match_file.decode_text`)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

import pytest

from bgfast.errors import InvalidMatchFileError, InvalidMetError, InvalidSpecError, InvalidWeightsError
from bgfast.validation import check_input_file, read_input_file
from cli_helpers import fixed_terminal, run  # noqa: F401


def _sparse(path: Path, size: int) -> Path:
    """A file of ``size`` bytes that takes no room on the disk."""
    with open(path, "wb") as f:
        f.truncate(size)
    return path


def _spec(tmp_path: Path, **extra: str) -> Path:
    lines = ['name = "t"', "match_length = 1", "matches_per_pairing = 2"]
    lines += [f"{key} = {value!r}" for key, value in extra.items()]
    lines += ['[[players]]', 'name = "a"', 'bot = "random"', '[[players]]', 'name = "b"', 'bot = "random"']
    path = tmp_path / "t.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_check_refuses_a_device_a_pipe_a_folder_and_a_file_too_large(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    for path, reason in (("/dev/zero", "it is a character device"), (tmp_path / "pipe", "it is a pipe"),
                         (tmp_path, "it is a folder"), (tmp_path / "missing", "No such file")):
        with pytest.raises(InvalidSpecError, match=f"^cannot read thing '{path}': {reason}"):
            read_input_file(path, "thing", limit=10, error=InvalidSpecError)
    _sparse(tmp_path / "big", 11)
    with pytest.raises(ValueError, match=r"^cannot read thing '.*big': it is 11 bytes, more than such a file "
                                         r"can be \(10 at most\)$"):
        check_input_file(tmp_path / "big", "thing", limit=10)
    assert read_input_file(_sparse(tmp_path / "fits", 10), "thing", limit=10) == bytes(10)


@pytest.mark.parametrize("player", ["neural:weights={}", "heuristic:weights={}"])
def test_a_bot_weights_file_that_is_a_device_or_too_large_is_one_error_line(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, player: str) -> None:
    # /dev/zero was read without end (24 GB, then the kernel killed bgfast)
    from bgfast.bots.neural_weights import MAX_FILE_BYTES
    from bgfast.evaluator import MAX_HEURISTIC_WEIGHTS_BYTES

    limit = MAX_FILE_BYTES if player.startswith("neural") else MAX_HEURISTIC_WEIGHTS_BYTES
    big = _sparse(tmp_path / "big.w", limit + 1)
    for path, reason in (("/dev/zero", "it is a character device, not a regular file"),
                         (str(big), f"it is {limit + 1:,} bytes, more than such a file can be ({limit:,} at most)")):
        code, out, err = run(capsys, "play", "--player", player.format(path), "--player", "random")
        what = player.split(":")[0]
        assert (code, out, err) == (2, "", f"bgfast: error: cannot read {what} weights {path!r}: {reason}\n")


def test_a_tournament_spec_or_openings_file_that_is_a_device_or_too_large_is_one_error_line(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from bgfast.tournament.openings import MAX_OPENINGS_BYTES
    from bgfast.tournament.spec import MAX_SPEC_BYTES

    code, out, err = run(capsys, "tournament", "/dev/zero")
    assert (code, out, err) == (2, "", "bgfast: error: cannot read tournament spec '/dev/zero': it is a "
                                       "character device, not a regular file\n")
    big = _sparse(tmp_path / "big.toml", MAX_SPEC_BYTES + 1)
    code, out, err = run(capsys, "tournament", str(big))
    assert (code, out) == (2, "") and err.endswith(f"more than such a file can be ({MAX_SPEC_BYTES:,} at most)\n")
    for openings, reason in (("/dev/zero", "it is a character device"),
                             (str(_sparse(tmp_path / "big.txt", MAX_OPENINGS_BYTES + 1)), "more than such")):
        code, out, err = run(capsys, "tournament", str(_spec(tmp_path, openings=openings)))
        assert (code, out) == (2, "") and err.count("\n") == 1
        assert f"cannot read openings file {openings!r}: " in err and reason in err


@pytest.mark.parametrize("reader", ["read_mat", "read_sgf"])
def test_a_match_file_that_is_a_device_or_too_large_is_refused_in_one_line(tmp_path: Path, reader: str) -> None:
    from bgfast.formats import mat, sgf
    from bgfast.formats.match_file import MAX_FILE_BYTES

    read: Callable[[Path | str], object] = getattr(mat if reader == "read_mat" else sgf, reader)
    with pytest.raises(InvalidMatchFileError, match="^cannot read match file '/dev/zero': it is a character device"):
        read("/dev/zero")
    with pytest.raises(InvalidMatchFileError, match=f"more than such a file can be \\({MAX_FILE_BYTES:,} at most"):
        read(_sparse(tmp_path / "big", MAX_FILE_BYTES + 1))


def test_a_match_equity_table_that_is_a_folder_is_refused_in_one_line(tmp_path: Path) -> None:
    from bgfast.met import MatchEquityTable

    folder = tmp_path / "table.xml"
    folder.mkdir()
    with pytest.raises(InvalidMetError, match="^cannot read match equity table '.*table.xml': it is a folder"):
        MatchEquityTable.load(folder)


def test_a_neural_weights_header_too_long_to_read_back_is_not_written(tmp_path: Path) -> None:
    from bgfast.bots.neural import shipped_weights
    from bgfast.bots.neural_weights import MAX_HEADER_BYTES, Weights, write_weights

    weights = shipped_weights()
    with pytest.raises(InvalidWeightsError, match="header is .* bytes, more than a weights file holds"):
        write_weights(tmp_path / "w.bgw", Weights(weights.arrays, {"notes": "x" * MAX_HEADER_BYTES}))
    assert not (tmp_path / "w.bgw").exists()


# ---------------------------------------------------------------- encodings of match files


def _match() -> tuple[object, str]:
    """A match and its .mat text, the players named with letters outside ASCII."""
    from bgfast.bots import get_bot
    from bgfast.formats.mat import mat_text
    from bgfast.game import play_match_with_history

    history = play_match_with_history(get_bot("pubeval"), get_bot("random"), length=3, seed=2)
    return history, mat_text(history, players=("Müller", "Façade"))


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252", "utf-16-le", "utf-16-be", "utf-8"])
def test_a_mat_file_in_latin1_or_utf16_without_a_byte_order_mark_reads_its_names(
        tmp_path: Path, encoding: str) -> None:
    # Latin-1 read with replacement characters; UTF-16 with no BOM read as junk
    from bgfast.formats.mat import read_mat

    history, text = _match()
    path = tmp_path / "m.mat"
    path.write_bytes(text.replace("\n", "\r\n").encode(encoding))
    read = read_mat(path)
    assert read.players == ("Müller", "Façade")
    assert read.history.games == history.games  # type: ignore[attr-defined]


def test_bytes_that_look_like_utf16_but_do_not_decode_are_refused_naming_the_encoding(tmp_path: Path) -> None:
    from bgfast.formats.mat import read_mat

    path = tmp_path / "m.mat"
    path.write_bytes(_match()[1].encode("utf-16-le") + b"\x00\xd8")  # a lone high surrogate at the end
    with pytest.raises(InvalidMatchFileError, match=r"^.*m.mat: text in UTF-16-LE without a byte-order mark, "
                                                    r"it seems, but it does not decode as such .*save it as UTF-8$"):
        read_mat(path)
