"""Transcripts for bench/retention.py: JSON Lines of finished missions and, beside each, the
planted facts and the questions that probe them. `generate.py` writes them all."""
