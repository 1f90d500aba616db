from django.db import models


class Passage(models.Model):
    """A few hundred chars of a finished mission, in its original words, indexed for
    recall over a normalised copy (language.analysis): Korean particles and English word
    forms do not decide whether it is found. Written by context.services; a mission keeps
    its passages as long as it exists."""

    mission = models.ForeignKey(
        "missions.Mission", on_delete=models.CASCADE, related_name="passages"
    )
    # Denormalised from the mission: recall filters a channel's passages outside the
    # detail window in one index scan.
    channel = models.ForeignKey("office.Channel", on_delete=models.CASCADE, related_name="+")
    session = models.ForeignKey(
        "chat_sessions.ChatSession", on_delete=models.CASCADE, related_name="+"
    )
    seq = models.PositiveIntegerField()
    position = models.PositiveIntegerField(help_text="0, 1, 2… within the mission.")
    start = models.PositiveIntegerField(help_text="Offset in the mission's text.")
    text = models.TextField()
    terms = models.TextField(help_text="The text normalised for search.")

    class Meta:
        ordering = ["session_id", "seq", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["mission", "position"], name="passage_position_unique_per_mission"
            ),
        ]
        indexes = [models.Index(fields=["channel", "session", "seq"], name="passage_channel")]

    def __str__(self) -> str:
        return f"#{self.seq}.{self.position} {self.text[:40]}"
