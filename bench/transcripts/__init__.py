"""Transcripts for bench/retention.py: JSON Lines of finished missions and, beside each, the
planted facts and the questions that probe them. `generate.py` writes the generated ones,
byte for byte the same from the same data, and checks all of them for fairness.

What a generated transcript says lives in data/NAME.yaml, per language; the code that turns
it into missions is shared:

- `engine.py`: the office conversations (bakery_ko, bikeshop_en, ceramics_mix), written
  wholly as data: planted missions with pastes, filler templates and pools with
  placeholders, facts, rules and questions;
- `long_talk.py`: the long talks (long_talk_en, long_talk_ko);
- `common.py`: the rule that keeps an answer out of every mission but its own, the two
  files, and the fairness check.

The launch transcripts (launch_en, launch_ko: 120 short missions each) are kept as they
were written; their generator's template code is retired, and the figures recorded on them
in docs/ stand on these bytes."""
