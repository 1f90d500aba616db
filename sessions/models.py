from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

# How long a session's name may be (shown in the session menu beside its number).
SESSION_TITLE_CHARS = 80


class NoticeTrigger(models.TextChoices):
    INSTRUCTION = "instruction", _("On instruction")
    ENTRY = "entry", _("On channel entry")


class ChatSession(models.Model):
    channel = models.ForeignKey(
        "office.Channel",
        on_delete=models.CASCADE,
        related_name="sessions",
        verbose_name=_("channel"),
    )
    number = models.PositiveIntegerField(_("number"))
    title = models.CharField(_("name"), max_length=SESSION_TITLE_CHARS, blank=True, default="")
    started_at = models.DateTimeField(_("started at"), auto_now_add=True)
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    mission_count = models.PositiveIntegerField(_("missions"), default=0)
    # How many of them are syntheses: the person's next mission is numbered
    # mission_count - synthesis_count + 1 (missions.labels).
    synthesis_count = models.PositiveIntegerField(_("syntheses"), default=0)
    long_notice_sent_at = models.DateTimeField(
        _("long-session notice sent at"), null=True, blank=True
    )
    long_notice_trigger = models.CharField(
        _("long-session notice sent"), max_length=16, choices=NoticeTrigger.choices, blank=True
    )
    carried_over_from = models.OneToOneField(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="continued_by",
        verbose_name=_("carried over from"),
    )

    class Meta:
        verbose_name = _("chat session")
        verbose_name_plural = _("chat sessions")
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
