from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

# A persona is a system prompt: a few paragraphs. The cap keeps one hire from filling the
# database or every prompt of that employee's channels.
PERSONA_MAX_CHARS = 8000


# Each language named in its own words, as the language menu does.
LANGUAGE_CHOICES = [("en", "English"), ("ko", "한국어")]


def default_language() -> str:
    return str(settings.LANGUAGE_CODE)


class Office(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="offices",
        verbose_name=_("owner"),
    )
    name = models.CharField(_("name"), max_length=120)
    language = models.CharField(
        _("language"),
        max_length=8,
        choices=LANGUAGE_CHOICES,
        default=default_language,
        help_text=_("The owner's language for notices and the interface."),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("office")
        verbose_name_plural = _("offices")
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="office_name_unique_per_owner"),
        ]

    def __str__(self) -> str:
        return self.name


class Employee(models.Model):
    office = models.ForeignKey(
        Office, on_delete=models.CASCADE, related_name="employees", verbose_name=_("office")
    )
    name = models.CharField(_("name"), max_length=80)
    role = models.CharField(_("role"), max_length=120)
    persona = models.TextField(
        _("persona"), max_length=PERSONA_MAX_CHARS, help_text=_("The employee's system prompt.")
    )
    model = models.CharField(
        _("model"),
        max_length=120,
        blank=True,
        help_text=_("Model name; blank uses the server default."),
    )
    is_master = models.BooleanField(
        _("chief of staff"),
        default=False,
        help_text=_("The chief of staff who answers in the master channel and delegates."),
    )
    is_active = models.BooleanField(_("active"), default=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("employee")
        verbose_name_plural = _("employees")
        ordering = ["-is_master", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["office", "name"], name="employee_name_unique_per_office"
            ),
            models.UniqueConstraint(
                fields=["office"],
                condition=Q(is_master=True),
                name="one_master_employee_per_office",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.role})"


class ChannelKind(models.TextChoices):
    DM = "dm", _("1:1")
    MASTER = "master", _("Master")
    ALL = "all", _("All hands")
    PROJECT = "project", _("Project")


class Channel(models.Model):
    office = models.ForeignKey(
        Office, on_delete=models.CASCADE, related_name="channels", verbose_name=_("office")
    )
    kind = models.CharField(_("kind"), max_length=16, choices=ChannelKind.choices)
    name = models.CharField(_("name"), max_length=120)
    employee = models.ForeignKey(
        Employee,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="dm_channels",
        verbose_name=_("employee"),
        help_text=_("The one employee of a 1:1 channel."),
    )
    members = models.ManyToManyField(
        Employee, blank=True, related_name="project_channels", verbose_name=_("members")
    )
    lead = models.ForeignKey(
        Employee,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="led_channels",
        verbose_name=_("lead"),
        help_text=_("Answers project instructions that name nobody."),
    )
    # A project whose lead retired keeps who it was until someone is made lead again:
    # the project and office pages flag it for reassignment.
    retired_lead = models.ForeignKey(
        Employee,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("retired lead"),
        help_text=_("The lead who retired; cleared when the project gets a lead again."),
    )
    # A project put away: out of the sidebar and read-only until unarchived.
    archived_at = models.DateTimeField(_("archived at"), null=True, blank=True)
    detail_budget_chars = models.PositiveIntegerField(
        _("recent missions budget (chars)"),
        null=True,
        blank=True,
        help_text=_("Overrides the character budget of recent missions for this channel."),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("channel")
        verbose_name_plural = _("channels")
        ordering = ["kind", "name"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(kind=ChannelKind.DM, employee__isnull=False)
                    | (~Q(kind=ChannelKind.DM) & Q(employee__isnull=True))
                ),
                name="dm_channel_has_exactly_one_employee",
            ),
            models.UniqueConstraint(
                fields=["employee"],
                condition=Q(kind=ChannelKind.DM),
                name="one_dm_channel_per_employee",
            ),
            models.UniqueConstraint(
                fields=["office"],
                condition=Q(kind=ChannelKind.MASTER),
                name="one_master_channel_per_office",
            ),
            models.UniqueConstraint(
                fields=["office"],
                condition=Q(kind=ChannelKind.ALL),
                name="one_all_channel_per_office",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.name}"


class Profile(models.Model):
    """What a person chose for themselves; blank means "as the office"."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="office_profile",
        verbose_name=_("user"),
    )
    language = models.CharField(
        _("language"),
        max_length=8,
        blank=True,
        choices=LANGUAGE_CHOICES,
        help_text=_("This person's interface language; blank follows their office."),
    )
    time_zone = models.CharField(
        _("time zone"),
        max_length=64,
        blank=True,
        help_text=_("Where this person's times are shown; blank follows their browser."),
    )

    class Meta:
        verbose_name = _("profile")
        verbose_name_plural = _("profiles")

    def __str__(self) -> str:
        return f"{self.user}: {self.language or 'office default'}"


class ChannelMute(models.Model):
    """A person muted a channel: its replies raise no notification and no count in the
    tab's title (the sidebar still counts them)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="channel_mutes",
        verbose_name=_("user"),
    )
    channel = models.ForeignKey(
        Channel, on_delete=models.CASCADE, related_name="mutes", verbose_name=_("channel")
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("muted channel")
        verbose_name_plural = _("muted channels")
        constraints = [
            models.UniqueConstraint(fields=["user", "channel"], name="one_mute_per_user_channel"),
        ]

    def __str__(self) -> str:
        return f"{self.user} muted {self.channel_id}"


class ThrottleHit(models.Model):
    """One counted attempt (a log-in, a retry…) while the cache that normally counts them
    is unreachable: the throttles' database fallback (office.attempts)."""

    scope = models.CharField(_("scope"), max_length=40)
    who = models.CharField(_("who"), max_length=300)
    at = models.DateTimeField(_("at"))

    class Meta:
        verbose_name = _("throttled attempt")
        verbose_name_plural = _("throttled attempts")
        indexes = [models.Index(fields=["scope", "who", "at"], name="throttle_hit_lookup")]

    def __str__(self) -> str:
        return f"{self.scope} {self.who} {self.at:%Y-%m-%d %H:%M:%S}"


class OfficeMember(models.Model):
    """A person who works in an office: hands out missions in every channel, reads and
    edits its memory. The office's owner is one (made with the office) and alone runs it:
    hires, invites, removes people, opens its admin. The others joined through an
    invitation (`OfficeInvitation`)."""

    office = models.ForeignKey(
        Office, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("office")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="office_memberships",
        verbose_name=_("user"),
    )
    joined_at = models.DateTimeField(_("joined at"), auto_now_add=True)

    class Meta:
        verbose_name = _("office member")
        verbose_name_plural = _("office members")
        constraints = [
            models.UniqueConstraint(fields=["office", "user"], name="one_membership_per_office"),
        ]

    def __str__(self) -> str:
        return str(self.user)


class OfficeInvitation(models.Model):
    """A link the owner handed someone to join their office. Only a digest of the link's
    secret is kept, so the link is shown once; it works once, until it expires or the
    owner withdraws it."""

    office = models.ForeignKey(
        Office, on_delete=models.CASCADE, related_name="invitations", verbose_name=_("office")
    )
    digest = models.CharField(_("digest"), max_length=64, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires at"))
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("accepted by"),
    )
    accepted_at = models.DateTimeField(_("accepted at"), null=True, blank=True)
    withdrawn_at = models.DateTimeField(_("withdrawn at"), null=True, blank=True)

    class Meta:
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")

    def __str__(self) -> str:
        return f"invitation {self.pk} to {self.office_id}"
