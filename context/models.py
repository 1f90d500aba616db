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


class PassageVector(models.Model):
    """A passage's meaning (language.meaning): its sentence embedding by one model, as
    float16 bytes. Written in the background lane after the passage (context.vectors);
    a passage without one is ranked by its terms alone. Rows are only added (a passage
    indexed again is a new passage), so a process keeps a channel's vectors and reads
    only the rows after the last it has (context.dense)."""

    passage = models.ForeignKey(
        Passage, on_delete=models.CASCADE, related_name="vectors", verbose_name=_("passage")
    )
    # Denormalised from the passage: recall reads one channel's vectors, and leaves out
    # the detail window's (session, seq) without a join.
    channel = models.ForeignKey(
        "office.Channel", on_delete=models.CASCADE, related_name="+", verbose_name=_("channel")
    )
    session_id = models.PositiveBigIntegerField(_("session"))
    seq = models.PositiveIntegerField(_("number in the session"))
    model = models.CharField(_("model"), max_length=40)
    vector = models.BinaryField(_("vector"))

    class Meta:
        verbose_name = _("passage vector")
        verbose_name_plural = _("passage vectors")
        constraints = [
            models.UniqueConstraint(
                fields=["passage", "model"], name="passage_vector_unique_per_model"
            ),
        ]
        indexes = [models.Index(fields=["channel", "model", "id"], name="passage_vector_channel")]

    def __str__(self) -> str:
        return f"{self.passage_id} ({self.model})"
