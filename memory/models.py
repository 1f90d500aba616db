from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class MemoryScope(models.TextChoices):
    OFFICE = "office", _("Office")
    EMPLOYEE = "employee", _("Employee")
    CHANNEL = "channel", _("Channel")


class MemoryKind(models.TextChoices):
    PREFERENCE = "preference", _("Preference")
    FACT = "fact", _("Fact")
    RULE = "rule", _("Rule")
    DECISION = "decision", _("Decision")


class MemoryOrigin(models.TextChoices):
    USER = "user", _("Written by the person")
    EXTRACTED = "extracted", _("Extracted from a mission")
    ADMIN = "admin", _("Written in the admin")


class MemoryItem(models.Model):
    """Long-term memory: what outlives sessions, kept apart from the chat history."""

    office = models.ForeignKey(
        "office.Office",
        on_delete=models.CASCADE,
        related_name="memory_items",
        verbose_name=_("office"),
    )
    scope = models.CharField(_("scope"), max_length=10, choices=MemoryScope.choices)
    employee = models.ForeignKey(
        "office.Employee",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="memory_items",
        verbose_name=_("employee"),
    )
    channel = models.ForeignKey(
        "office.Channel",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="memory_items",
        verbose_name=_("channel"),
    )
    kind = models.CharField(_("kind"), max_length=12, choices=MemoryKind.choices)
    text = models.TextField(_("text"))
    # The text normalised for search (language.analysis), written with the text by the
    # memory services: Korean particles and English word forms do not decide ranking.
    terms = models.TextField(_("search terms"), blank=True, default="")
    source_mission = models.ForeignKey(
        "missions.Mission",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="memory_items",
        verbose_name=_("source mission"),
    )
    origin = models.CharField(_("origin"), max_length=10, choices=MemoryOrigin.choices)
    # For an item extraction took from what the person said in chat: the sentence of
    # their own words it stands on. Empty for what a model proposed without a source
    # there (and for items written in the panel or the admin, whose origin says who).
    source_span = models.TextField(_("the person's words"), blank=True, default="")
    pinned = models.BooleanField(_("pinned"), default=False)
    active = models.BooleanField(_("active"), default=True)
    superseded_by = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="supersedes",
        verbose_name=_("superseded by"),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)
    last_used_at = models.DateTimeField(_("last used at"), null=True, blank=True)

    class Meta:
        verbose_name = _("memory item")
        verbose_name_plural = _("memory items")
        ordering = ["-pinned", "-updated_at"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    (
                        Q(scope=MemoryScope.OFFICE)
                        & Q(employee__isnull=True)
                        & Q(channel__isnull=True)
                    )
                    | (
                        Q(scope=MemoryScope.EMPLOYEE)
                        & Q(employee__isnull=False)
                        & Q(channel__isnull=True)
                    )
                    | (
                        Q(scope=MemoryScope.CHANNEL)
                        & Q(channel__isnull=False)
                        & Q(employee__isnull=True)
                    )
                ),
                name="memory_scope_matches_target",
            ),
        ]
        indexes = [
            models.Index(fields=["office", "active", "pinned"], name="memory_office_active_pinned")
        ]

    def __str__(self) -> str:
        return f"[{self.get_kind_display()}] {self.text[:60]}"

    @property
    def stated_by_person(self) -> bool:
        """Set down by a person: written by them or an admin, or taken from their own
        words in chat. Extraction and a model's output only propose changes to it."""
        return self.origin in (MemoryOrigin.USER, MemoryOrigin.ADMIN) or bool(self.source_span)


class ProposalState(models.TextChoices):
    PENDING = "pending", _("Waiting for the person")
    CONFIRMED = "confirmed", _("Confirmed")
    REJECTED = "rejected", _("Rejected")


class MemoryProposal(models.Model):
    """A change that extraction would make to what a person set down themselves (an item
    they wrote, an admin wrote, or anyone pinned): it waits for the person to confirm it
    in the memory panel, and until then nothing changes."""

    office = models.ForeignKey(
        "office.Office",
        on_delete=models.CASCADE,
        related_name="memory_proposals",
        verbose_name=_("office"),
    )
    kind = models.CharField(_("kind"), max_length=12, choices=MemoryKind.choices)
    text = models.TextField(_("text"))
    # The items it would retire; all of one target (scope, employee, channel).
    replaces = models.ManyToManyField(
        MemoryItem,
        through="ProposalReplaces",
        related_name="replacement_proposals",
        verbose_name=_("replaces"),
    )
    source_mission = models.ForeignKey(
        "missions.Mission",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="memory_proposals",
        verbose_name=_("source mission"),
    )
    state = models.CharField(
        _("state"), max_length=10, choices=ProposalState.choices, default=ProposalState.PENDING
    )
    # The item a confirmation created.
    result = models.ForeignKey(
        MemoryItem,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("resulting item"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("decided by"),
    )

    class Meta:
        verbose_name = _("memory proposal")
        verbose_name_plural = _("memory proposals")
        indexes = [models.Index(fields=["office", "state"], name="memory_proposal_pending")]

    def __str__(self) -> str:
        return f"[{self.state}] {self.text[:60]}"


class ProposalReplaces(models.Model):
    """An item a proposal would retire. Its own model (the table Django made for the
    link) so that screens listing it, such as the admin's delete page, name it in the
    reader's language."""

    proposal = models.ForeignKey(
        MemoryProposal,
        on_delete=models.CASCADE,
        db_column="memoryproposal_id",
        verbose_name=_("memory proposal"),
    )
    item = models.ForeignKey(
        MemoryItem,
        on_delete=models.CASCADE,
        db_column="memoryitem_id",
        verbose_name=_("memory item"),
    )

    class Meta:
        db_table = "memory_memoryproposal_replaces"
        verbose_name = _("item a proposal would replace")
        verbose_name_plural = _("items proposals would replace")
        # The table keeps the unique index Django made on (proposal, item) with it.

    def __str__(self) -> str:
        return self.item.text[:60]


class MemoryVector(models.Model):
    """A memory item's meaning (language.meaning): the sentence embedding of its text by
    one model, as float16 bytes, written in the background lane. Deleted when the item's
    text changes (memory.services), and written again."""

    item = models.ForeignKey(
        MemoryItem, on_delete=models.CASCADE, related_name="vectors", verbose_name=_("memory item")
    )
    # Denormalised from the item: ranking reads one office's vectors.
    office = models.ForeignKey(
        "office.Office", on_delete=models.CASCADE, related_name="+", verbose_name=_("office")
    )
    model = models.CharField(_("model"), max_length=40)
    vector = models.BinaryField(_("vector"))

    class Meta:
        verbose_name = _("memory vector")
        verbose_name_plural = _("memory vectors")
        constraints = [
            models.UniqueConstraint(
                fields=["item", "model"], name="memory_vector_unique_per_model"
            ),
        ]
        indexes = [models.Index(fields=["office", "model", "id"], name="memory_vector_office")]

    def __str__(self) -> str:
        return f"{self.item_id} ({self.model})"
