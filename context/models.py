from django.db import models
from django.utils.translation import gettext_lazy as _


class Passage(models.Model):
    """A few hundred chars of a finished mission, in its original words, indexed for
    recall over a normalised copy (language.analysis): Korean particles and English word
    forms do not decide whether it is found. Written by context.services; a mission keeps
    its passages as long as it exists."""

    mission = models.ForeignKey(
        "missions.Mission",
        on_delete=models.CASCADE,
        related_name="passages",
        verbose_name=_("mission"),
    )
    # Denormalised from the mission: recall filters a channel's passages outside the
    # detail window in one index scan.
    channel = models.ForeignKey(
        "office.Channel", on_delete=models.CASCADE, related_name="+", verbose_name=_("channel")
    )
    session = models.ForeignKey(
        "chat_sessions.ChatSession",
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("session"),
    )
    seq = models.PositiveIntegerField(_("number in the session"))
    position = models.PositiveIntegerField(
        _("position"), help_text=_("0, 1, 2… within the mission.")
    )
    start = models.PositiveIntegerField(_("start"), help_text=_("Offset in the mission's text."))
    text = models.TextField(_("text"))
    terms = models.TextField(_("search terms"), help_text=_("The text normalised for search."))

    class Meta:
        verbose_name = _("passage")
        verbose_name_plural = _("passages")
        ordering = ["session_id", "seq", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["mission", "position"], name="passage_position_unique_per_mission"
            ),
        ]
        indexes = [models.Index(fields=["channel", "session", "seq"], name="passage_channel")]

    def __str__(self) -> str:
        # Without its text: that is in the prompt's words ("Instruction: …"), and the
        # admin lists passages (a mission's delete page) in the reader's language.
        return f"#{self.seq}.{self.position}"
