"""bgfast.validation: the one "an integer, not a bool, in range" check and its siblings."""
from __future__ import annotations

import math
import os
import re
from pathlib import Path

import numpy as np
import pytest

from bgfast.errors import InvalidRolloutError, InvalidSpecError, OutputFileError
from bgfast.validation import check_output_file, flag, one_of, output_file_fault, real_number, whole_number


def test_whole_number_returns_a_plain_int_for_python_and_numpy_integers() -> None:
    assert whole_number(3, "n", low=1) == 3
    value = whole_number(np.int64(7), "n", low=0, high=7)
    assert value == 7 and type(value) is int


@pytest.mark.parametrize("bad", [True, False, 2.0, "3", None, np.float64(2.0)])
def test_whole_number_refuses_bools_and_non_integers(bad: object) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(f"n must be a whole number, got {bad!r}") + "$"):
        whole_number(bad, "n")


def test_whole_number_names_the_range_it_was_given() -> None:
    with pytest.raises(ValueError, match=r"^n must be a whole number from 0 to 2, got 3$"):
        whole_number(3, "n", low=0, high=2)
    with pytest.raises(ValueError, match=r"^n must be a whole number of at least 1, got 0$"):
        whole_number(0, "n", low=1)
    with pytest.raises(ValueError, match=r"^n must be a whole number of at most 2, got 3$"):
        whole_number(3, "n", high=2)


def test_whole_number_takes_the_callers_words_and_exception_class() -> None:
    with pytest.raises(InvalidRolloutError, match=r"^trials must be a positive integer, got 0$"):
        whole_number(0, "trials", low=1, what="a positive integer", bounds="", error=InvalidRolloutError)
    with pytest.raises(InvalidSpecError, match=r"^seed: must be a whole number from 0 to 9, got -1$"):
        whole_number(-1, "seed:", low=0, high=9, error=InvalidSpecError)


def test_real_number_accepts_ints_floats_and_numpy_numbers_as_float() -> None:
    assert real_number(1, "x") == 1.0 and type(real_number(np.float32(0.5), "x")) is float
    assert real_number(0.0, "x", low=0.0, high=1.0) == 0.0


@pytest.mark.parametrize("bad", [True, math.nan, math.inf, -math.inf, "1", None])
def test_real_number_refuses_bools_text_nan_and_infinity(bad: object) -> None:
    with pytest.raises(ValueError, match=r"^x must be a number, got "):
        real_number(bad, "x")


def test_real_number_with_strict_bounds_refuses_the_bounds_themselves() -> None:
    assert real_number(0.25, "alpha", low=0.0, high=0.5, strict=True) == 0.25
    for bad in (0.0, 0.5):
        with pytest.raises(ValueError, match=r"^alpha must be a number between 0.0 and 0.5, got "):
            real_number(bad, "alpha", low=0.0, high=0.5, strict=True)
    with pytest.raises(ValueError, match=r"^se must be a positive number, got 0$"):
        real_number(0, "se", low=0.0, strict=True, what="a positive number", bounds="")


def test_flag_takes_only_true_or_false() -> None:
    assert flag(True, "f") is True and flag(np.bool_(False), "f") is False
    for bad in (0, 1, "true", None):
        with pytest.raises(ValueError, match=r"^f must be true or false"):
            flag(bad, "f")


def test_one_of_lists_the_choices_and_refuses_a_bool_equal_to_one() -> None:
    assert one_of("met", "cube", ("never", "met")) == "met"
    with pytest.raises(ValueError, match=r"^cube must be one of never, met, got 'x'$"):
        one_of("x", "cube", ("never", "met"))
    with pytest.raises(ValueError):
        one_of(True, "n", (1, 2))


def test_output_file_fault_is_the_one_home_of_the_output_checks(tmp_path: Path) -> None:
    assert output_file_fault(tmp_path / "new.csv") is None
    assert output_file_fault(tmp_path) == "it is a folder, not a file"
    assert output_file_fault(os.path.join("nowhere", "x.csv")) == "there is no folder 'nowhere'"
    assert output_file_fault(os.devnull, device=True) is None        # text may go to /dev/stdout
    assert output_file_fault(os.devnull) == "it is not a regular file (a device or a pipe); name a file"
    with pytest.raises(OutputFileError, match="^cannot write the table 'nowhere/x.csv': there is no folder 'nowhere'; "
                                              "nothing was written$"):
        check_output_file("nowhere/x.csv", "the table")
