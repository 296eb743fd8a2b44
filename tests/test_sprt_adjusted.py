"""The SPRT on luck-adjusted results (``[sprt] on = "luck_adjusted"``, bgfast/tournament/sprt.py
over the judge's figures of bgfast/tournament/judged.py).

Oracles: the spec's errors name the key; the normal GSPRT's verdict does not depend on how
the units are cut into chunks; and by simulation, on matches of the same bot in both seats
(on dice of each match's own: the truth is exactly a 50% score by symmetry), judged by the
net, the adjusted test decides in far fewer matches than the raw one and its error rates
stay near the nominal alpha and beta over many runs.  The cheap versions run in seconds;
the ``slow`` version repeats them at a size that tests the error rates tightly.
"""
from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from bgfast.bots import get_bot
from bgfast.errors import InvalidSpecError
from bgfast.game import JUDGED_COLUMNS, MatchPlayer, play_matches
from bgfast.tournament import TournamentSpec, load_standings, run_tournament
from bgfast.tournament.judged import JUDGED_MATCH_DTYPE, judged_figures, luck_adjusted_scores, unit_scores
from bgfast.tournament.pairs import MIN_SAMPLES_FOR_ERROR
from bgfast.tournament.spec import JudgeSpec
from bgfast.tournament.sprt import ScoreSums, Sprt, SprtStatus, SprtVerdict
from bgfast.tournament.store import Store
from bgfast.tournament.worker import play_chunk


def spec_dict(on: str | None = "luck_adjusted", judge: bool = True, **extra: object) -> dict[str, object]:
    sprt: dict[str, object] = {"elo0": 0, "elo1": 50}
    if on is not None:
        sprt["on"] = on
    spec: dict[str, object] = {
        "name": "adjusted", "format": "gauntlet", "challenger": "pubeval", "match_length": 1,
        "matches_per_pairing": 2000, "chunk_size": 20, "sprt": sprt,
        "players": [{"name": "heuristic", "bot": "heuristic"}, {"name": "pubeval", "bot": "pubeval"}], **extra}
    if judge:
        spec["judge"] = {"bot": "neural"}
    return spec


# ---------------------------------------------------------------- the spec


def test_an_sprt_on_luck_adjusted_results_needs_a_judge() -> None:
    with pytest.raises(InvalidSpecError, match=r'^sprt.on: "luck_adjusted" needs a judge: add a \[judge\]'):
        TournamentSpec.from_dict(spec_dict(judge=False))


def test_an_unknown_sprt_on_is_a_spec_error_naming_the_key() -> None:
    with pytest.raises(InvalidSpecError, match="^sprt.on: must be one of raw, luck_adjusted, got 'adjusted'"):
        TournamentSpec.from_dict(spec_dict(on="adjusted"))


def test_sprt_on_raw_is_the_default_and_keeps_the_specs_hash() -> None:
    default = TournamentSpec.from_dict(spec_dict(on=None))
    raw = TournamentSpec.from_dict(spec_dict(on="raw"))
    adjusted = TournamentSpec.from_dict(spec_dict())
    assert default.sprt is not None and default.sprt.on == "raw" and default == raw
    assert "on" not in default.to_dict()["sprt"] and default.hash == raw.hash
    assert adjusted.hash != raw.hash
    again = TournamentSpec.from_toml_string(adjusted.to_toml())
    assert again.sprt == adjusted.sprt and again.hash == adjusted.hash


# ---------------------------------------------------------------- the test itself


def test_the_normal_sprt_decides_the_same_whatever_the_chunks() -> None:
    rng = np.random.default_rng(3)
    scores = rng.normal(0.53, 0.2, 3000)
    test = Sprt(0, 20)
    whole = test.sequential_scores(scores)
    verdict = test.sequential_scores([])
    for part in np.array_split(scores, 37):
        if verdict.status is SprtStatus.CONTINUE:
            start = verdict.counts if isinstance(verdict.counts, ScoreSums) else None
            verdict = test.sequential_scores(part, start=start)
    assert verdict.status is not SprtStatus.CONTINUE
    # the same unit decides (the sums agree to rounding; a run's chunks are always the same)
    assert (verdict.status, verdict.units, verdict.matches) == (whole.status, whole.units, whole.matches)
    assert verdict.llr == pytest.approx(whole.llr, rel=1e-9)


def test_the_normal_sprt_waits_for_enough_units_to_know_the_spread() -> None:
    # Given scores that sit on elo1's expected score: the first units' spread is nearly nothing
    test = Sprt(0, 50)
    early = test.sequential_scores([0.5715, 0.5716, 0.5714, 0.5715])
    assert early.status is SprtStatus.CONTINUE and early.llr > test.upper
    decided = test.sequential_scores([0.5715, 0.5716, 0.5714, 0.5715, 0.5716])
    assert decided.status is SprtStatus.ACCEPT_H1 and decided.units == MIN_SAMPLES_FOR_ERROR


def test_the_normal_sprts_llr_is_the_gaussian_glr_with_a_fitted_variance() -> None:
    rng = np.random.default_rng(5)
    x = rng.normal(0.52, 0.3, 400)
    s0, s1 = 0.5, 0.55
    # the log-likelihood of the scores under N(s, var) at its best var, summed
    def best(s: float) -> float:
        var = float(np.mean((x - s) ** 2))
        return float(np.sum(-0.5 * np.log(2 * math.pi * var) - (x - s) ** 2 / (2 * var)))
    from bgfast.tournament.sprt import llr_normal
    got = float(llr_normal(np.array(len(x)), np.array(x.sum()), np.array((x * x).sum()), s0, s1))
    assert got == pytest.approx(best(s1) - best(s0), rel=1e-9)


def test_bad_unit_scores_are_refused() -> None:
    with pytest.raises(ValueError, match="finite"):
        Sprt(0, 20).sequential_scores([0.5, math.nan])
    with pytest.raises(ValueError, match="another size"):
        Sprt(0, 20).sequential_scores([0.5], matches_per_unit=1, start=ScoreSums(3, 1.5, 0.8, 2))
    with pytest.raises(ValueError, match="matches_per_unit"):
        Sprt(0, 20).sequential_scores([0.5], matches_per_unit=3)


def test_luck_adjusted_scores_are_the_judged_figures_scale() -> None:
    # Given money games judged: the mean adjusted score is 0.5 + adjusted ppg / 6, the Elo scale
    rows = np.zeros(4, dtype=JUDGED_MATCH_DTYPE)
    rows["player0"], rows["player1"] = [0, 1, 0, 1], [1, 0, 1, 0]
    rows["dice_index"] = [0, 0, 1, 1]
    rows["score0"], rows["score1"], rows["winner"], rows["games"] = [2, 0, 0, 1], [0, 1, 3, 0], [0, 1, 1, 0], 1
    rows["luck0"], rows["luck1"] = [0.7, -0.2, -1.1, 0.4], [-0.1, 0.3, 0.5, 0.0]
    scores = luck_adjusted_scores(rows, 0)
    figures = judged_figures(rows, 0)
    assert figures is not None
    assert scores.mean() == pytest.approx(0.5 + figures.adjusted / 6)
    assert unit_scores(rows, 0, paired=True).tolist() == pytest.approx([scores[:2].mean(), scores[2:].mean()])
    assert luck_adjusted_scores(rows, 1) == pytest.approx(1.0 - scores)
    with pytest.raises(ValueError, match="did not play"):
        luck_adjusted_scores(rows, 7)
    rows["dice_index"] = [0, 1, 1, 2]
    with pytest.raises(ValueError, match="dice pair 0 is incomplete"):
        unit_scores(rows, 0, paired=True)


# ---------------------------------------------------------------- in a run


def _db(tmp: Path, name: str) -> Path:
    return tmp / f"{name}.sqlite"


def test_a_run_with_an_sprt_on_adjusted_results_stops_and_says_so(tmp_path: Path) -> None:
    spec = TournamentSpec.from_dict(spec_dict())
    standings = run_tournament(spec, _db(tmp_path, "a"), workers=2)
    assert standings.sprt is not None and standings.sprt.status in ("H0", "H1")
    assert standings.sprt.on == "luck_adjusted" and standings.sprt.matches < 2000
    assert "SPRT on luck-adjusted scores [0, 50]: H" in standings.text()
    assert standings.to_json()["sprt"]["on"] == "luck_adjusted"
    # the verdict is the same with one worker, and read back by the report
    one = run_tournament(spec, _db(tmp_path, "b"), workers=1)
    assert one.sprt == standings.sprt and load_standings(_db(tmp_path, "a")).sprt == standings.sprt
    raw = run_tournament(TournamentSpec.from_dict(spec_dict(on="raw")), _db(tmp_path, "c"), workers=1)
    assert raw.sprt is not None and raw.sprt.on == "raw" and "SPRT [0, 50]" in raw.text()


def test_an_interrupted_adjusted_sprt_resumes_to_the_verdict_of_an_uninterrupted_one(tmp_path: Path) -> None:
    # pubeval is about 70 Elo below the heuristic bot at 1-point matches: a test over several chunks
    spec = TournamentSpec.from_dict({**spec_dict(), "sprt": {"elo0": -100, "elo1": -50, "on": "luck_adjusted"}})
    whole = run_tournament(spec, _db(tmp_path, "whole"), workers=1).sprt
    assert whole is not None and whole.status in ("H0", "H1") and whole.matches > 60
    part = _db(tmp_path, "part")
    with Store(part) as store:                      # as after a crash: chunks 0 and 2 saved
        run = store.begin_run(spec)
        for chunk in (0, 2):
            store.write_chunk(run, play_chunk(spec, chunk))
    so_far = load_standings(part).sprt               # the report's verdict so far: chunk 0's units
    assert so_far is not None and so_far.on == "luck_adjusted"
    assert so_far.status == "continue" and so_far.matches == 20
    assert run_tournament(spec, part, workers=2).sprt == whole
    with sqlite3.connect(part) as conn:
        assert conn.execute("SELECT sprt_status FROM runs").fetchone()[0] == whole.status  # type: ignore[union-attr]


# ---------------------------------------------------------------- by simulation

ALPHA = BETA = 0.05
ELO_GAP = 30.0


def self_play(seed: int, matches: int) -> tuple[np.ndarray, np.ndarray]:
    """``matches`` 1-point matches of the heuristic bot against itself, each on dice of its
    own, player 0 in seat 0, judged by the net (0 ply, luck filter 4): player 0's match
    wins (0 or 1) and luck-adjusted scores, in order.  The truth is a 50% score exactly."""
    evaluator, x = JudgeSpec("neural", {}).evaluator()
    player = MatchPlayer(get_bot("heuristic", cube="never"), get_bot("heuristic", cube="never"), length=1)
    player.set_judge(evaluator, x, luck_filter=4)
    judged = np.zeros((matches, len(JUDGED_COLUMNS)))
    out = play_matches([player], seed, np.zeros(matches, np.int32), np.arange(matches, dtype=np.uint64),
                       judged=judged)
    rows = np.zeros(matches, dtype=JUDGED_MATCH_DTYPE)
    rows["player0"], rows["player1"], rows["length"], rows["dice_index"] = 0, 1, 1, np.arange(matches)
    rows["score0"], rows["score1"], rows["winner"], rows["games"] = out[:, 0], out[:, 1], out[:, 2], out[:, 3]
    for k, name in enumerate(JUDGED_COLUMNS):
        rows[name] = judged[:, k]
    return (rows["winner"] == 0).astype(np.int64), unit_scores(rows, 0, paired=False)


def back_to_back(decide: Callable[[int], SprtVerdict], n: int) -> list[SprtVerdict]:
    """Tests run one after another over one stream of ``n`` units, each from the unit after
    the last one's decision (independent runs: disjoint units); the undecided tail dropped."""
    verdicts, at = [], 0
    while at < n:
        v = decide(at)
        if v.status is SprtStatus.CONTINUE:
            break
        verdicts.append(v)
        at += v.units
    return verdicts


def error_rates(wins: np.ndarray, scores: np.ndarray) -> dict[str, tuple[float, int, float]]:
    """For the raw and the adjusted test: the share of wrong verdicts, how many runs, and the
    mean matches to a verdict, over back-to-back runs of both tests at the truth (0 Elo)
    once as H0 (``[0, gap]``: H1 accepted is wrong, alpha) and once as H1 (``[-gap, 0]``:
    H0 accepted is wrong, beta)."""
    out = {}
    for name in ("raw", "adjusted"):
        wrong, runs, units = 0, 0, 0
        for test, bad in ((Sprt(0, ELO_GAP, ALPHA, BETA), SprtStatus.ACCEPT_H1),
                          (Sprt(-ELO_GAP, 0, ALPHA, BETA), SprtStatus.ACCEPT_H0)):
            def decide(at: int, test: Sprt = test) -> SprtVerdict:
                if name == "raw":
                    return test.sequential(wins[at:], matches_per_unit=1)
                return test.sequential_scores(scores[at:], matches_per_unit=1)
            verdicts = back_to_back(decide, len(wins))
            wrong += sum(v.status is bad for v in verdicts)
            runs += len(verdicts)
            units += sum(v.units for v in verdicts)
        out[name] = (wrong / max(runs, 1), runs, units / max(runs, 1))
    return out


def test_the_adjusted_sprt_decides_in_fewer_matches_at_its_nominal_error_rates() -> None:
    wins, scores = self_play(seed=21, matches=3000)
    rates = error_rates(wins, scores)
    raw_rate, raw_runs, raw_matches = rates["raw"]
    adj_rate, adj_runs, adj_matches = rates["adjusted"]
    assert raw_runs >= 2 and adj_runs >= 60, rates
    # The net removes most of the luck of a 1-point match: several times fewer matches
    assert adj_matches < 0.3 * raw_matches, rates
    # and wrong verdicts no more often than alpha = beta = 5% allows (3 standard errors)
    assert adj_rate <= ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / adj_runs), rates


@pytest.mark.slow
def test_the_adjusted_sprts_error_rates_over_many_runs_are_near_nominal() -> None:
    wins, scores = self_play(seed=22, matches=40000)
    rates = error_rates(wins, scores)
    raw_rate, raw_runs, raw_matches = rates["raw"]
    adj_rate, adj_runs, adj_matches = rates["adjusted"]
    assert adj_runs >= 800 and raw_runs >= 30, rates
    assert adj_matches < 0.3 * raw_matches, rates
    se = math.sqrt(ALPHA * (1 - ALPHA) / adj_runs)
    # Wald's bounds make an SPRT's error rates at most nominal, less by the overshoot
    assert 0.01 < adj_rate <= ALPHA + 3 * se, rates
    assert raw_rate <= ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / raw_runs), rates
