from django.db import models
from django.db.models import Q


class NoticeTrigger(models.TextChoices):
    INSTRUCTION = "instruction", "On instruction"
    ENTRY = "entry", "On channel entry"


class ChatSession(models.Model):
    channel = models.ForeignKey("office.Channel", on_delete=models.CASCADE, related_name="sessions")
    number = models.PositiveIntegerField()
    started_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    mission_count = models.PositiveIntegerField(default=0)
    long_notice_sent_at = models.DateTimeField(null=True, blank=True)
    long_notice_trigger = models.CharField(max_length=16, choices=NoticeTrigger.choices, blank=True)
    carried_over_from = models.OneToOneField(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="continued_by"
    )

    class Meta:
        ordering = ["channel", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["channel", "number"], name="session_number_unique_per_channel"
            ),
            models.UniqueConstraint(
                fields=["channel"],
                condition=Q(closed_at__isnull=True),
                name="one_current_session_per_channel",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.channel} #{self.number}"
