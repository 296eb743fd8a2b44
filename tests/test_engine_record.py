"""bgfast.engines.record: the decisions of an outside player, written down and played back."""
from __future__ import annotations

import pytest

from bgfast.bots import get_bot
from bgfast.engines.record import RecordError, RecordingBot, ReplayBot, decode_decisions, encode_decisions
from bgfast.engines.resilient import play_resilient
from bgfast.engines.ubgi_client import UbgiBot
from bgfast.formats.mat import mat_text
from bgfast.game import MatchPlayer, play_match_with_history
from test_ubgi_engine import SERVER, fake


def test_varints_round_trip_and_a_truncated_record_is_refused() -> None:
    values = [0, 1, 127, 128, 300, 16_383, 16_384, 2**40]
    assert decode_decisions(encode_decisions(values)) == values
    assert len(encode_decisions([5] * 10)) == 10
    with pytest.raises(RecordError):
        decode_decisions(b"\x80")
    with pytest.raises(ValueError):
        encode_decisions([-1])


def test_a_recorded_engine_match_replays_move_by_move_without_the_engine() -> None:
    engine = UbgiBot([*SERVER, "--bot", "pubeval"])
    recorder = RecordingBot(engine)
    heuristic = get_bot("heuristic")
    played = play_resilient(lambda: MatchPlayer(recorder, heuristic, length=7).play(3, 4),
                            (recorder, heuristic), length=7).summary
    engine.close()
    record = recorder.record()
    assert 0 < len(record) < 2000
    replay = ReplayBot(record)
    history = play_match_with_history(replay, heuristic, length=7, seed=3, index=4)
    assert replay.exhausted()
    assert history.record.score == (played.score0, played.score1) and len(history.games) == played.games
    assert sum(1 for game in history.games for turn in game if turn.action == "double") == played.doubles
    text = mat_text(history, players=("engine", "heuristic"))
    assert text.count("Game ") == played.games and " 7 point match" in text


def test_a_replayed_attempt_starts_a_new_record(tmp_path) -> None:  # type: ignore[no-untyped-def]
    once = tmp_path / "armed"
    once.write_text("")
    engine = UbgiBot(fake("crash", at=40, once=once))
    recorder = RecordingBot(engine)
    heuristic = get_bot("heuristic")
    result = play_resilient(lambda: MatchPlayer(recorder, heuristic, length=5).play(6, 1),
                            (recorder, heuristic), length=5)
    engine.close()
    assert len(result.faults) == 1
    replayed = MatchPlayer(ReplayBot(recorder.record()), heuristic, length=5).play(6, 1)
    assert replayed == result.summary


def test_a_record_that_does_not_fit_the_match_raises_record_error() -> None:
    heuristic = get_bot("heuristic")
    with pytest.raises(RecordError, match="no decision left"):
        MatchPlayer(ReplayBot(b""), heuristic, length=3).play(1, 0)
    with pytest.raises(RecordError, match="beyond"):
        MatchPlayer(ReplayBot([200] * 50), heuristic, length=3).play(1, 0)
