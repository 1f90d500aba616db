from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _


class RollingSummary(models.Model):
    """The structured, verified summary of a session's folded missions."""

    session = models.OneToOneField(
        "chat_sessions.ChatSession",
        on_delete=models.CASCADE,
        related_name="summary",
        verbose_name=_("session"),
    )
    state = models.JSONField(
        _("structured state"),
        default=dict,
        blank=True,
        help_text=_("The summary's items, each with the missions it came from."),
    )
    text = models.TextField(
        _("prompt text"), blank=True, help_text=_("The state rendered for the prompt.")
    )
    folded_through_seq = models.PositiveIntegerField(
        _("folded through mission"),
        default=0,
        help_text=_("Every mission with a number up to this one is folded into the state."),
    )
    version = models.PositiveIntegerField(_("version"), default=0)
    carry_over_pending = models.BooleanField(
        _("carry-over pending"),
        default=False,
        help_text=_("The previous session's summary and last missions are still being folded in."),
    )
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)
    fold_refused_at = models.DateTimeField(
        _("fold refused at"),
        null=True,
        blank=True,
        help_text=_(
            "When a fold last failed verification, even as the deterministic fold: the "
            "watermark did not move. The sweeper leaves it; a new mission or a re-fold "
            "tries again, and a fold that lands clears it."
        ),
    )
    fold_findings = models.JSONField(
        _("fold findings"),
        default=list,
        blank=True,
        help_text=_("What the verifier found in the refused fold."),
    )

    class Meta:
        verbose_name = _("rolling summary")
        verbose_name_plural = _("rolling summaries")

    def __str__(self) -> str:
        return gettext("Summary of %(session)s v%(version)s") % {
            "session": self.session,
            "version": self.version,
        }


class RevisionKind(models.TextChoices):
    FOLD = "fold", _("Fold")
    CARRY_OVER = "carry_over", _("Carry-over")
    ROLLBACK = "rollback", _("Roll back")
    REFOLD = "refold", _("Re-fold")


class SummaryRevision(models.Model):
    summary = models.ForeignKey(
        RollingSummary,
        on_delete=models.CASCADE,
        related_name="revisions",
        verbose_name=_("summary"),
    )
    version = models.PositiveIntegerField(_("version"))
    kind = models.CharField(_("kind"), max_length=12, choices=RevisionKind.choices)
    before_state = models.JSONField(_("state before"), default=dict, blank=True)
    after_state = models.JSONField(_("state after"), default=dict, blank=True)
    before_text = models.TextField(_("prompt text before"), blank=True)
    after_text = models.TextField(_("prompt text after"), blank=True)
    folded_mission_ids = models.JSONField(_("folded mission ids"), default=list, blank=True)
    folded_through_seq = models.PositiveIntegerField(_("folded through mission"), default=0)
    verifier_report = models.JSONField(_("verifier report"), default=dict, blank=True)
    provider = models.CharField(_("provider"), max_length=60, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("summary revision")
        verbose_name_plural = _("summary revisions")
        ordering = ["summary", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["summary", "version"], name="revision_version_unique_per_summary"
            ),
        ]

    def __str__(self) -> str:
        return gettext("%(summary)s, revision %(version)s (%(kind)s)") % {
            "summary": self.summary,
            "version": self.version,
            "kind": self.get_kind_display(),
        }
