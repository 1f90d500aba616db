from django.db import models


class RollingSummary(models.Model):
    """The structured, verified summary of a session's folded missions."""

    session = models.OneToOneField(
        "chat_sessions.ChatSession", on_delete=models.CASCADE, related_name="summary"
    )
    state = models.JSONField(default=dict, blank=True, help_text="summaries.schemas.SummaryState")
    text = models.TextField(blank=True, help_text="The state rendered for the prompt.")
    folded_through_seq = models.PositiveIntegerField(
        default=0, help_text="Every mission with seq up to this is folded into the state."
    )
    version = models.PositiveIntegerField(default=0)
    carry_over_pending = models.BooleanField(
        default=False,
        help_text="The previous session's summary and last missions are still being folded in.",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        # The table was created when summaries lived in the memory app.
        db_table = "memory_rollingsummary"
        verbose_name_plural = "rolling summaries"

    def __str__(self) -> str:
        return f"Summary of {self.session} v{self.version}"


class RevisionKind(models.TextChoices):
    FOLD = "fold", "Fold"
    CARRY_OVER = "carry_over", "Carry-over"
    ROLLBACK = "rollback", "Roll back"
    REFOLD = "refold", "Re-fold"


class SummaryRevision(models.Model):
    summary = models.ForeignKey(RollingSummary, on_delete=models.CASCADE, related_name="revisions")
    version = models.PositiveIntegerField()
    kind = models.CharField(max_length=12, choices=RevisionKind.choices)
    before_state = models.JSONField(default=dict, blank=True)
    after_state = models.JSONField(default=dict, blank=True)
    before_text = models.TextField(blank=True)
    after_text = models.TextField(blank=True)
    folded_mission_ids = models.JSONField(default=list, blank=True)
    folded_through_seq = models.PositiveIntegerField(default=0)
    verifier_report = models.JSONField(default=dict, blank=True)
    provider = models.CharField(max_length=60, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "memory_summaryrevision"
        ordering = ["summary", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["summary", "version"], name="revision_version_unique_per_summary"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.summary} rev {self.version} ({self.kind})"
