"""bgfast report: one table per match length, and the HTML page of --html (it parses, holds
every player and the text report's numbers, escapes names, renders in headless chromium)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

from bgfast.tournament import load_standings
from bgfast.tournament.html_report import running_ppg
from bgfast.tournament.store import open_results
from cli_helpers import run

MULTI = """
name = "multi"
seed = 7
match_length = [1, 3, 0]
matches_per_pairing = 12
chunk_size = 10

[[players]]
name = "a<b>&"
bot = "pubeval"

[[players]]
name = "名前 🎲 $x$"
bot = "random"

[[players]]
name = "plain"
bot = "pubeval"
cube = "never"
"""

NAMES = ("a<b>&", "名前 🎲 $x$", "plain")


@pytest.fixture
def multi_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "multi.toml").write_text(MULTI, encoding="utf-8")
    code, _, err = run(capsys, "tournament", "multi.toml", "--db", "multi.sqlite", "--workers", "1", "--quiet")
    assert code == 0, err
    return tmp_path / "multi.sqlite"


def test_each_length_has_its_own_table_and_they_add_up_to_the_pooled_one(multi_db: Path) -> None:
    standings = load_standings(multi_db)
    assert [s.length for s in standings.by_length] == [0, 1, 3]
    for one in standings.by_length:
        assert one.matches_played == 3 * 12 and {p.name for p in one.players} == set(NAMES)
        assert not one.by_length and one.sprt is None
    pooled = {p.name: p.stats for p in standings.players}
    for name in NAMES:
        stats = [next(p.stats for p in one.players if p.name == name) for one in standings.by_length]
        assert sum(s.matches for s in stats) == pooled[name].matches
        assert sum(s.wins for s in stats) == pooled[name].wins
        assert sum(s.points for s in stats) == pooled[name].points
    with open_results(multi_db) as store:  # the sums by length are the file's sums, split
        by_length = store.totals_by_length()
        assert sum(t.matches for seats, _ in by_length.values() for t in seats) == standings.matches_played
        units = sum(u.units * u.matches_per_unit for _, groups in by_length.values() for u in groups)
        assert units == sum(u.units * u.matches_per_unit for u in store.unit_totals())


def test_report_text_and_json_show_each_length(multi_db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "report", str(multi_db))
    assert code == 0
    assert "(the tables above pool the 3 match lengths (money games, 1-point matches, 3-point matches)" in out
    for heading in ("money games: 36 matches, 3 players", "1-point matches: 36 matches, 3 players",
                    "3-point matches: 36 matches, 3 players"):
        assert heading in out.splitlines()
    code, out, _ = run(capsys, "report", str(multi_db), "--json")
    data = json.loads(out)
    assert [one["length"] for one in data["lengths"]] == [0, 1, 3]
    assert all(len(one["players"]) == 3 and len(one["pairings"]) == 3 for one in data["lengths"])
    assert "decisions" in data["players"][0] and "decisions" not in data["lengths"][0]["players"][0]


def test_a_file_of_one_length_has_no_tables_per_length(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "one.toml").write_text(MULTI.replace("[1, 3, 0]", "3").replace("multi", "one"), encoding="utf-8")
    assert run(capsys, "tournament", "one.toml", "--db", "one.sqlite", "--workers", "1", "--quiet")[0] == 0
    assert load_standings("one.sqlite").by_length == ()
    out = run(capsys, "report", "one.sqlite", "--json")[1]
    assert "lengths" not in json.loads(out)
    assert "pool" not in run(capsys, "report", "one.sqlite")[1]


def test_running_ppg_follows_each_pairing_from_its_first_player_side(multi_db: Path) -> None:
    standings = load_standings(multi_db)
    pairs = [(q.a, q.b) for q in standings.pairings]
    with open_results(multi_db) as store:
        series = running_ppg(store.iter_matches(), pairs, {(q.a, q.b): q.stats.matches for q in standings.pairings},
                             points=5)
    for q in standings.pairings:
        points = series[(q.a, q.b)]
        assert points[-1] == (q.stats.matches, pytest.approx(q.stats.ppg))   # it ends at the pairing's ppg
        assert len(points) <= 6 and [n for n, _ in points] == sorted(n for n, _ in points)


class _Page(HTMLParser):
    """The page's text, its tags, and its SVG elements (each as its source text)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.tags: list[str] = []
        self.sources: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            assert not (name in ("src", "href") and value and not value.startswith("#")), (tag, name, value)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


needs_matplotlib = pytest.mark.skipif(not _matplotlib(), reason="matplotlib is not installed (bgfast[plot])")


@needs_matplotlib
def test_html_page_holds_the_spec_the_tables_and_the_charts(multi_db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, text, err = run(capsys, "report", str(multi_db), "--html", "multi.html")
    assert code == 0 and "wrote the HTML report to multi.html" in err
    source = Path("multi.html").read_text(encoding="utf-8")
    page = _Page()
    page.feed(source)
    page.close()
    shown = " ".join(page.text)
    assert "script" not in page.tags and "link" not in page.tags and "img" not in page.tags  # self-contained
    for name in NAMES:
        assert name in shown
    assert "a<b>&" not in source and "a&lt;b&gt;&amp;" in source       # escaped, read back as typed
    # every number of the text report's tables is in the page (the pooled ones and each length's)
    numbers = [token for line in text.splitlines() if line[:1] not in ("(", "") for token in line.split()
               if token[:1] in "+-0123456789" and any(ch.isdigit() for ch in token)]
    for token in numbers:
        assert token.strip("[],") in shown, token
    for words in ("seed", "crawford = true", "Judged figures", "not judged", "money games", "3-point matches"):
        assert words in shown
    svgs = [source[i:source.index("</svg>", i) + 6] for i in range(len(source)) if source.startswith("<svg", i)]
    assert len(svgs) == 2 + 3                              # Elo, running ppg, each length's Elo
    for svg in svgs:
        root = ET.fromstring(svg)
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
    labels = " ".join(t.text or "" for t in ET.fromstring(svgs[0]).iter("{http://www.w3.org/2000/svg}text"))
    assert "名前 🎲 $x$" in labels                           # the name as typed, '$' not matplotlib's math


@needs_matplotlib
def test_html_refuses_the_file_another_option_writes(multi_db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for option in ("--plot", "--matches", "--pairings"):
        code, out, err = run(capsys, "report", str(multi_db), option, "same.html", "--html", "same.html")
        assert (code, out) == (2, "") and "name the same file" in err and len(err.splitlines()) == 1
    code, out, err = run(capsys, "report", str(multi_db), "--html", str(multi_db))
    assert code == 2 and "is the results file" in err
    assert not Path("same.html").exists()


def test_html_without_matplotlib_says_so_in_one_line(multi_db: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if matplotlib were not installed
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    code, out, err = run(capsys, "report", str(multi_db), "--html", "r.html")
    assert (code, out) == (2, "")
    assert err == "bgfast: error: --html needs matplotlib: pip install 'bgfast[plot]'\n"
    assert not Path("r.html").exists()


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@needs_matplotlib
@pytest.mark.skipif(_chromium() is None, reason="Debian's chromium is not installed (apt-get install chromium)")
def test_html_renders_in_headless_chromium(multi_db: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run(capsys, "report", str(multi_db), "--html", "multi.html")[0] == 0
    png = tmp_path / "multi.png"
    done = subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", f"--screenshot={png}",
                           "--window-size=1200,1600", (tmp_path / "multi.html").as_uri()],
                          capture_output=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000     # a picture, not a blank page


@pytest.fixture
def judged_multi_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    monkeypatch.chdir(tmp_path)
    spec = (MULTI.replace("[1, 3, 0]", "[3, 0]").replace('"multi"', '"judged"')    # nobody doubles: no cube rate
            .replace('bot = "pubeval"\n\n', 'bot = "pubeval"\ncube = "never"\n\n')
            .replace('bot = "random"\n', 'bot = "random"\ncube = "never"\n') + '\n[judge]\nbot = "neural"\n')
    (tmp_path / "judged.toml").write_text(spec, encoding="utf-8")
    code, _, err = run(capsys, "tournament", "judged.toml", "--db", "judged.sqlite", "--workers", "1", "--quiet")
    assert code == 0, err
    return tmp_path / "judged.sqlite"


@needs_matplotlib
def test_the_judged_section_has_each_lengths_charts_and_no_nan(judged_multi_db: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "report", str(judged_multi_db), "--html", "judged.html")[0] == 0
    source = Path("judged.html").read_text(encoding="utf-8")
    section = source[source.index('<section id="judged">'):]
    section = section[:section.index("</section>")]
    page = _Page()
    page.feed(source)
    page.close()
    assert "nan" not in " ".join(page.text).split() and "n/a" in page.text
    svgs = [section[i:section.index("</svg>", i) + 6] for i in range(len(section)) if section.startswith("<svg", i)]
    assert len(svgs) == 2 * 2                              # each length: running raw and adjusted; rates and luck
    texts = [" ".join(t.text or "" for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text"))
             for svg in svgs]
    assert "points per game" in texts[0] and "match score" in texts[2]     # money games, then 3-point matches
    for running in (texts[0], texts[2]):
        assert "luck-adjusted" in running and all(name in running for name in NAMES)
    for rates in (texts[1], texts[3]):
        assert "checker error rate (mEMG)" in rates and "n/a" in rates
        assert all(name in rates for name in NAMES)


@needs_matplotlib
@pytest.mark.skipif(_chromium() is None, reason="Debian's chromium is not installed (apt-get install chromium)")
def test_the_judged_page_renders_in_headless_chromium(judged_multi_db: Path, capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    assert run(capsys, "report", str(judged_multi_db), "--html", "judged.html")[0] == 0
    png = tmp_path / "judged.png"
    done = subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", f"--screenshot={png}",
                           "--window-size=1200,3000", (tmp_path / "judged.html").as_uri()],
                          capture_output=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000
