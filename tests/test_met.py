"""Tests of bgfast.met: the match equity tables read from gnubg's XML files, and take points."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from bgfast.errors import InvalidMetError
from bgfast.match import MatchState
from bgfast.met import MONEY_TAKE_POINT, MatchEquityTable, risk_gain_take_point

MET_DIR = Path(__file__).parent.parent / "bgfast" / "data" / "met"


@pytest.mark.parametrize("name", ["Kazaross-XG2", "Rockwell-Kazaross", "woolsey"])
def test_shipped_tables_keep_their_copyright_notice(name):
    text = (MET_DIR / f"{name}.xml").read_text(encoding="utf-8")
    assert "Copyright (C)" in text and "notice and this notice are preserved" in text
    assert "Copyright (C)" in MatchEquityTable.load(name).notice


def test_available_tables():
    assert MatchEquityTable.available() == ["Kazaross-XG2", "Rockwell-Kazaross", "woolsey"]


def test_default_table_is_kazaross_xg2_with_its_description_and_notice():
    met = MatchEquityTable.load()
    assert met.name == "Kazaross-XG2" and met.max_length == 25
    assert met.title == "Kazaross XG2 25 point MET"
    assert met.source.startswith("Generated using XG rollouts to 9pts")
    assert "Copyright (C) 2011 Neil Kazaross" in met.notice
    assert "copyright\nnotice and this notice are preserved" in met.notice
    assert MatchEquityTable.load("kazaross-xg2") is met


@pytest.mark.parametrize("name", ["Kazaross-XG2", "Rockwell-Kazaross", "woolsey"])
def test_table_values_match_the_xml(name):
    met = MatchEquityTable.load(name)
    root = ET.parse(MET_DIR / f"{name}.xml").getroot()
    rows = [[float(me.text) for me in row.findall("me")] for row in root.find("pre-crawford-table")]
    post = [float(me.text) for me in root.find("post-crawford-table").find("row").findall("me")]
    assert met.max_length == len(rows)
    for i, row in enumerate(rows):
        for j, value in enumerate(row):
            assert met.equity(i + 1, j + 1) == value
    for j, value in enumerate(post):
        assert met.post_crawford(j + 1) == value


def test_kazaross_spot_values():
    met = MatchEquityTable.load("Kazaross-XG2")
    assert met.equity(1, 1) == 0.5
    assert met.equity(1, 2) == 0.67736  # the Crawford game, leader 1-away vs 2-away
    assert met.equity(2, 4) == 0.66870
    assert met.equity(4, 2) == 0.33130
    assert met.equity(25, 25) == 0.5
    assert met.post_crawford(2) == 0.48803
    assert met.post_crawford(25) == 0.001230


def test_woolsey_spot_values():
    met = MatchEquityTable.load("woolsey")
    assert met.max_length == 15
    assert met.equity(2, 4) == 0.68 and met.equity(4, 2) == 0.32
    assert met.post_crawford(3) == 0.30


@pytest.mark.parametrize("name", ["Kazaross-XG2", "Rockwell-Kazaross", "woolsey"])
def test_table_is_consistent_from_both_sides(name):
    met = MatchEquityTable.load(name)
    for a in range(1, met.max_length + 1):
        for b in range(1, met.max_length + 1):
            assert met.equity(a, b) + met.equity(b, a) == pytest.approx(1.0, abs=1e-9)


def test_match_won_or_lost_has_equity_one_or_zero():
    met = MatchEquityTable.load()
    assert met.equity(0, 5) == 1.0 and met.equity(5, 0) == 0.0 and met.post_crawford(0) == 1.0
    assert met.equity(0, 0) == 1.0  # away is looked at first


def test_money_take_point_is_a_quarter():
    assert MONEY_TAKE_POINT == 0.25
    assert risk_gain_take_point(-1.0, 2.0, -2.0) == 0.25
    assert MatchState(jacoby=True).take_point(1) == 0.25


def test_take_point_of_four_away_trailer_doubled_by_two_away_leader():
    met = MatchEquityTable.load("Kazaross-XG2")
    # Pass: 4-away vs 1-away, the Crawford game next: 1 - 0.81436.  Take: win -> 2-away
    # vs 2-away (0.5), lose -> match lost.
    expected = (1 - 0.81436 - 0.0) / (0.5 - 0.0)
    assert met.take_point(4, 2) == pytest.approx(expected)
    assert met.take_point(4, 2) == pytest.approx(0.37128)
    assert MatchState(length=7, score=(5, 3)).take_point(1, met) == pytest.approx(0.37128)


def test_take_point_of_two_away_leader_doubled_by_four_away_trailer():
    met = MatchEquityTable.load("Kazaross-XG2")
    # Pass: 2-away vs 3-away (0.59947).  Take: win -> match, lose -> 2-away vs 2-away.
    assert met.take_point(2, 4) == pytest.approx((0.59947 - 0.5) / (1.0 - 0.5))


def test_take_point_post_crawford_uses_the_post_crawford_row():
    met = MatchEquityTable.load("Kazaross-XG2")
    # Leader 1-away takes the trailer's (4-away) double.
    passed = 1 - met.post_crawford(3)
    lose = 1 - met.post_crawford(2)
    assert met.take_point(1, 4) == pytest.approx((passed - lose) / (1.0 - lose))


def test_take_point_with_a_dead_cube_for_the_taker():
    met = MatchEquityTable.load("Kazaross-XG2")
    # Taker 2-away, cube already at 2: taking at 4 wins the match, passing leaves 2-away vs 2-away.
    assert met.take_point(2, 4, cube_value=2) == pytest.approx((0.5 - 0.0) / (1.0 - 0.0))


def test_emg_and_mwc_conversions_are_inverse():
    met = MatchEquityTable.load()
    for emg in (-1.0, -0.4, 0.0, 0.25, 1.0):
        mwc = met.emg_to_mwc(emg, 5, 3, cube_value=2)
        assert met.mwc_to_emg(mwc, 5, 3, cube_value=2) == pytest.approx(emg)
    assert met.emg_to_mwc(1.0, 5, 3, 2) == met.equity(3, 3)
    assert met.emg_to_mwc(-1.0, 5, 3, 2) == pytest.approx(1 - met.equity(1, 5))


def test_unknown_table_name_raises_invalid_met_error():
    with pytest.raises(InvalidMetError, match="'no-such-table'"):
        MatchEquityTable.load("no-such-table")


def test_missing_met_file_raises_invalid_met_error(tmp_path):
    with pytest.raises(InvalidMetError):
        MatchEquityTable.load(tmp_path / "missing.xml")


def test_malformed_met_file_raises_invalid_met_error(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text("<met><pre-crawford-table><row><me>x</me></row></pre-crawford-table></met>")
    with pytest.raises(InvalidMetError):
        MatchEquityTable.load(bad)
    notxml = tmp_path / "notxml.xml"
    notxml.write_text("this is not xml <")
    with pytest.raises(InvalidMetError):
        MatchEquityTable.load(notxml)


def test_met_file_loads_by_path(tmp_path):
    copy = tmp_path / "mine.xml"
    copy.write_bytes((MET_DIR / "woolsey.xml").read_bytes())
    met = MatchEquityTable.load(copy)
    assert met.name == "mine" and met.equity(2, 4) == 0.68


def test_non_square_table_raises_invalid_met_error():
    with pytest.raises(InvalidMetError):
        MatchEquityTable("toy", [[0.5, 0.6]], [0.5])


@pytest.mark.parametrize("away, opp_away", [(26, 1), (1, 26), (-1, 3), (1.5, 2), (True, 2)])
def test_lookup_outside_the_table_raises_invalid_met_error(away, opp_away):
    with pytest.raises(InvalidMetError):
        MatchEquityTable.load().equity(away, opp_away)


def test_take_point_at_a_finished_score_raises_invalid_met_error():
    with pytest.raises(InvalidMetError):
        MatchEquityTable.load().take_point(0, 3)
    with pytest.raises(InvalidMetError):
        MatchEquityTable.load().take_point(3, 3, cube_value=0)
