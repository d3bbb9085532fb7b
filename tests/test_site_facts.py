"""Facts a page quotes with `{site} NAME` are computed by the build, never typed: reading times."""

from pathlib import Path

from dpguide.site import SiteBuild
from dpguide.site_facts import WORDS_PER_MINUTE


def test_reading_time_counts_prose_words_only_and_follows_edits(tmp_path: Path):
    learn = tmp_path / "docs" / "learn"
    learn.mkdir(parents=True)
    code = "```python\n" + "x = 1  # " + "word " * 5000 + "\n```\n"
    (learn / "long-page.md").write_text("# Title\n\n" + "word " * (WORDS_PER_MINUTE * 3) + "\n\n" + code)
    (learn / "short.md").write_text("# Short\n")
    facts = SiteBuild(tmp_path).reading_minutes()
    assert facts["minutes_learn_long_page"] == 3          # the 5000 words inside the code fence do not count
    assert facts["minutes_learn_short"] == 1              # never zero
    assert facts["reading_words_per_minute"] == WORDS_PER_MINUTE
    (learn / "long-page.md").write_text("# Title\n\n" + "word " * (WORDS_PER_MINUTE * 6))
    assert SiteBuild(tmp_path).reading_minutes()["minutes_learn_long_page"] == 6
