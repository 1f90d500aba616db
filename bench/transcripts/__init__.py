"""Transcripts for bench/retention.py: JSON Lines of finished missions and, beside each, the
planted facts and the questions that probe them. `generate.py` writes them all.

One generator, per-language words: `common.py` assembles a transcript from its `Spec`
(planted missions, filler from templates, timestamps over working days); `templates.py`
holds the templates every language shares, given each language's words. A transcript NAME
is `NAME.py` (its `SPEC` and the order of its templates), `NAME_data.py` (what it says:
planted missions, facts and questions, word pools) and, for templates of its own,
`NAME_writing.py` and `NAME_running.py`. The long talks (`long_talk.py`, data in
`long_talk_en.py`, `long_talk_ko.py`) assemble their missions otherwise but share the
rules and the files of `common.py`."""
