"""``bgfast hint ... --svg FILE``: the best play drawn (``board_svg(..., play=...)``)."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from bgfast.analysis import board_svg, rank_plays
from bgfast.errors import IllegalMoveError
from bgfast.position import Position
from cli_helpers import fixed_terminal, run  # noqa: F401

SVG = "{http://www.w3.org/2000/svg}"


def checkers(root: ET.Element) -> list[tuple[str, str, str]]:
    """The solid checkers drawn: (x, y, fill) of every filled circle of a checker's size."""
    return sorted((c.get("cx", ""), c.get("cy", ""), c.get("fill", "")) for c in root.iter(f"{SVG}circle")
                  if c.get("r") == "16.5")


def test_hint_svg_draws_the_best_play_over_the_board_after_it(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "best.svg"
    code, out, err = run(capsys, "hint", "4HPwATDgc/ABMA", "31", "--top", "1", "--svg", str(target))
    assert code == 0 and "1. 8/5 6/5" in out
    assert err == f"wrote the best play, 8/5 6/5, to {target}\n"
    root = ET.parse(target).getroot()
    before = ET.fromstring(board_svg("4HPwATDgc/ABMA", dice="31"))
    after = ET.fromstring(board_svg(Position().parse_move("8/5 6/5", "31").position.id(), dice="31"))
    assert checkers(root) != checkers(before) and checkers(root) == checkers(after)
    assert len(root.findall(f"{SVG}line")) == 2       # an arrow a checker's step
    assert "played 8/5 6/5" in "".join(root.itertext())


def test_a_double_draws_four_arrows_and_a_hit_sends_the_checker_to_the_bar() -> None:
    best = rank_plays("4HPwATDgc/ABMA", "66").plays[0].move
    root = ET.fromstring(board_svg(best.origin, play=best))
    assert str(best) == "24/18(2) 13/7(2)" and len(root.findall(f"{SVG}line")) == 4
    position = Position().parse_move("24/18 13/9", "64").position.swap_sides()   # blots on the mover's 7 and 16
    hitting = next(m for m in position.legal_moves(6, 1) if any(s.hit for s in m.checker_moves))
    drawn = ET.fromstring(board_svg(position, play=hitting))
    assert checkers(drawn) == checkers(ET.fromstring(board_svg(hitting.position, dice=(6, 1))))
    assert hitting.position.board[0][24] == 1         # the hit checker is on the bar, drawn there


def test_a_play_of_another_position_or_roll_is_refused() -> None:
    play = Position().parse_move("8/5 6/5", "31")
    with pytest.raises(IllegalMoveError, match="the play '8/5 6/5' of 31 is not one of '4HPwATCwZ/ABMA'"):
        board_svg(play.position, play=play)
    with pytest.raises(IllegalMoveError, match="is not one of this roll in"):
        board_svg(Position(), dice="42", play=play)


def test_hint_svg_into_a_missing_folder_is_refused_before_any_work(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "missing" / "best.svg"
    code, out, err = run(capsys, "hint", "4HPwATDgc/ABMA", "31", "--svg", str(target))
    assert (code, out) == (2, "")
    assert err == f"bgfast: error: --svg {str(target)!r}: there is no folder {str(target.parent)!r}\n"


@pytest.mark.parametrize("position_id", ["27YPAAAAAAD/fw", "AAAA/3/btg8AAA", "4HPwATDgc/ABMA"])
def test_every_checker_stays_on_the_board_even_fifteen_on_the_bar(position_id: str) -> None:
    # the bar holds 4 checkers from a cube's height off the middle to the edge, the 4th shows the count
    from bgfast.analysis.svg import _FRAME, _INNER_H, _TOP

    tree = ET.fromstring(board_svg(position_id))
    circles = [c for c in tree.iter("{http://www.w3.org/2000/svg}circle")]
    assert len(circles) >= 2
    for c in circles:
        y, r = float(c.get("cy")), float(c.get("r"))
        assert _TOP + _FRAME <= y - r and y + r <= _TOP + _FRAME + _INNER_H, (position_id, y)
    labels = [t.text for t in tree.iter("{http://www.w3.org/2000/svg}text")]
    assert "15" in labels or position_id == "4HPwATDgc/ABMA"


def test_a_five_digit_cube_fits_its_face() -> None:
    import dataclasses

    from bgfast.match import MatchState

    svg = board_svg("4HPwATDgc/ABMA", match=dataclasses.replace(MatchState(), cube_value=32768, cube_owner=0))
    face = next(t for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text") if t.text == "32768")
    assert float(face.get("font-size")) * 0.62 * len("32768") <= 36     # a bold digit is about 0.6 em wide
