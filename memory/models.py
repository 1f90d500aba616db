from django.conf import settings
from django.db import models
from django.db.models import Q


class MemoryScope(models.TextChoices):
    OFFICE = "office", "Office"
    EMPLOYEE = "employee", "Employee"
    CHANNEL = "channel", "Channel"


class MemoryKind(models.TextChoices):
    PREFERENCE = "preference", "Preference"
    FACT = "fact", "Fact"
    RULE = "rule", "Rule"
    DECISION = "decision", "Decision"


class MemoryOrigin(models.TextChoices):
    USER = "user", "User"
    EXTRACTED = "extracted", "Extracted"
    ADMIN = "admin", "Admin"


class MemoryItem(models.Model):
    """Long-term memory: what outlives sessions, kept apart from the chat history."""

    office = models.ForeignKey(
        "office.Office", on_delete=models.CASCADE, related_name="memory_items"
    )
    scope = models.CharField(max_length=10, choices=MemoryScope.choices)
    employee = models.ForeignKey(
        "office.Employee",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="memory_items",
    )
    channel = models.ForeignKey(
        "office.Channel",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="memory_items",
    )
    kind = models.CharField(max_length=12, choices=MemoryKind.choices)
    text = models.TextField()
    # The text normalised for search (language.analysis), written with the text by the
    # memory services: Korean particles and English word forms do not decide ranking.
    terms = models.TextField(blank=True, default="")
    source_mission = models.ForeignKey(
        "missions.Mission",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="memory_items",
    )
    origin = models.CharField(max_length=10, choices=MemoryOrigin.choices)
    pinned = models.BooleanField(default=False)
    active = models.BooleanField(default=True)
    superseded_by = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="supersedes"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
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
        return f"[{self.kind}] {self.text[:60]}"


class ProposalState(models.TextChoices):
    PENDING = "pending", "Waiting for the person"
    CONFIRMED = "confirmed", "Confirmed"
    REJECTED = "rejected", "Rejected"


class MemoryProposal(models.Model):
    """A change that extraction would make to what a person set down themselves (an item
    they wrote, an admin wrote, or anyone pinned): it waits for the person to confirm it
    in the memory panel, and until then nothing changes."""

    office = models.ForeignKey(
        "office.Office", on_delete=models.CASCADE, related_name="memory_proposals"
    )
    kind = models.CharField(max_length=12, choices=MemoryKind.choices)
    text = models.TextField()
    # The items it would retire; all of one target (scope, employee, channel).
    replaces = models.ManyToManyField(MemoryItem, related_name="replacement_proposals")
    source_mission = models.ForeignKey(
        "missions.Mission",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="memory_proposals",
    )
    state = models.CharField(
        max_length=10, choices=ProposalState.choices, default=ProposalState.PENDING
    )
    # The item a confirmation created.
    result = models.ForeignKey(
        MemoryItem, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        indexes = [models.Index(fields=["office", "state"], name="memory_proposal_pending")]

    def __str__(self) -> str:
        return f"[{self.state}] {self.text[:60]}"
