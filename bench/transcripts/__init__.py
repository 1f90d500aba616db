"""Transcripts for bench/retention.py: JSON Lines of finished missions and, beside each, the
planted facts and the questions that probe them. `generate.py` writes them all, byte for
byte the same from the same data.

What each transcript says lives in data/NAME.yaml, per language; the code that turns it
into missions is shared:

- `engine.py`: the office conversations (bakery_ko, bikeshop_en, ceramics_mix), written
  wholly as data: planted missions with pastes, filler templates and pools with
  placeholders, facts, rules and questions;
- `common.py` with `templates.py`: the launch transcripts (launch_en, launch_ko): `NAME.py`
  holds the transcript's `Spec` and the order of its templates, `NAME_data.py` reads its
  words from data/NAME.yaml, `NAME_writing.py` and `NAME_running.py` its own templates;
- `long_talk.py`: the long talks (long_talk_en, long_talk_ko), read from data/NAME.yaml,
  with the rules and the files of `common.py`."""
