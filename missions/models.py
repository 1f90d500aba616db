from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class MissionSource(models.TextChoices):
    DM = "dm", _("1:1")
    MASTER = "master", _("Master")
    ALL = "all", _("All hands")
    PROJECT = "project", _("Project")
    MEETING_FOLLOWUP = "meeting_followup", _("Meeting follow-up")
    DELEGATION = "delegation", _("Delegation")
    # The chief of staff's one answer once a plan's delegated missions have finished.
    SYNTHESIS = "synthesis", _("Synthesis")


class InstructionAuthor(models.TextChoices):
    """Who wrote a mission's instruction: the person, or the office (a synthesis's brief,
    a delegated part the chief of staff wrote). The office's words are never the person's:
    summaries, recall and memory read them as the office's."""

    PERSON = "person", _("The person")
    OFFICE = "office", _("The office")


class MissionStatus(models.TextChoices):
    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Running")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")
    # The person stopped the reply: what had come is kept as the reply.
    STOPPED = "stopped", _("Stopped")


# The missions that are part of the conversation: answered, or stopped by the person (what
# had come is kept as the reply, and the next instruction may be about it). The window,
# the pending digests, the folds, the recall index and memory read these.
ANSWERED = (MissionStatus.DONE, MissionStatus.STOPPED)


class Mission(models.Model):
    """One user instruction and its outcome."""

    session = models.ForeignKey(
        "chat_sessions.ChatSession",
        on_delete=models.CASCADE,
        related_name="missions",
        verbose_name=_("session"),
    )
    # Denormalized from session so that recall across a channel's sessions is one index scan.
    channel = models.ForeignKey(
        "office.Channel",
        on_delete=models.CASCADE,
        related_name="missions",
        verbose_name=_("channel"),
    )
    # Internal order of the session (windows, fold watermarks, summary sources, recall):
    # every mission of the session takes the next one, a synthesis too.
    seq = models.PositiveIntegerField(_("number in the session"))
    # The number a person sees and names ("#2"): the person's missions count 1, 2, 3…
    # without gaps; a synthesis is its plan's number with a letter ("1a", then "1b").
    # Given under the session's row lock (missions.creation).
    label = models.CharField(_("number shown"), max_length=16)
    source = models.CharField(_("source"), max_length=20, choices=MissionSource.choices)
    assignee = models.ForeignKey(
        "office.Employee",
        on_delete=models.PROTECT,
        related_name="missions",
        verbose_name=_("assignee"),
    )
    parent = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="children",
        verbose_name=_("parent mission"),
    )
    instruction = models.TextField(_("instruction"))
    instruction_author = models.CharField(
        _("instruction written by"),
        max_length=10,
        choices=InstructionAuthor.choices,
        default=InstructionAuthor.PERSON,
    )
    # The person on whose behalf it runs: who sent the instruction, and for its delegated
    # parts and follow-ups the same person. None for imports and replays, and for missions
    # made before an office could hold several people (the owner's, then).
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("requested by"),
    )
    # A delegated mission: what its parent asked to get back (blank: not said).
    expected_output = models.TextField(_("expected output"), blank=True)
    reply = models.TextField(_("reply"), blank=True)
    status = models.CharField(
        _("status"), max_length=10, choices=MissionStatus.choices, default=MissionStatus.QUEUED
    )
    error = models.TextField(_("error"), blank=True)
    client_id = models.CharField(_("client id"), max_length=64, blank=True)
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    # The id of the task delivery running it: the same delivery coming back means its
    # worker died, and it may take the mission over.
    run_token = models.CharField(_("run token"), max_length=64, blank=True)
    # Not auto_now_add: an imported conversation keeps the times it happened at.
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    # Refreshed while the run that holds the mission is alive (missions.heartbeat): a
    # reply that streams for minutes never looks abandoned.
    heartbeat_at = models.DateTimeField(_("last heartbeat"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    # The person asked to stop the reply while it ran: the run stops reading its stream
    # at its next piece, keeps what came, and marks the mission stopped.
    stop_requested_at = models.DateTimeField(_("stop requested at"), null=True, blank=True)
    # Edit and resend: the mission whose instruction the person edited into this one (that
    # one is kept as it was).
    edited_from = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="edits",
        verbose_name=_("edited from"),
    )
    # How many times the person asked for a new attempt (Regenerate); the earlier
    # attempts are kept (MissionAttempt, and their replies in the timeline).
    regenerations = models.PositiveIntegerField(_("regenerations"), default=0)
    # How many files the person gave with it (Attachment): a mission without any reads
    # none when its prompt is assembled.
    attachment_count = models.PositiveSmallIntegerField(_("attached files"), default=0)
    prompt_chars = models.PositiveIntegerField(_("prompt chars"), default=0)
    prompt_tokens = models.PositiveIntegerField(_("prompt tokens"), default=0)
    cached_tokens = models.PositiveIntegerField(_("cached tokens"), default=0)
    completion_tokens = models.PositiveIntegerField(_("completion tokens"), default=0)
    # The model that answered (the cost view prices the tokens by it); empty before it
    # answered, and for missions from before it was recorded.
    model = models.CharField(_("model"), max_length=100, blank=True, default="")

    class Meta:
        verbose_name = _("mission")
        verbose_name_plural = _("missions")
        ordering = ["session", "seq"]
        constraints = [
            models.UniqueConstraint(
                fields=["session", "seq"], name="mission_seq_unique_per_session"
            ),
            models.UniqueConstraint(
                fields=["session", "client_id"],
                condition=~Q(client_id=""),
                name="mission_client_id_unique_per_session",
            ),
            models.CheckConstraint(condition=Q(seq__gte=1), name="mission_seq_positive"),
            models.UniqueConstraint(
                fields=["session", "label"], name="mission_label_unique_per_session"
            ),
        ]
        indexes = [
            models.Index(fields=["session", "status", "seq"], name="mission_session_status_seq"),
            models.Index(fields=["status", "started_at"], name="mission_status_started"),
        ]

    def __str__(self) -> str:
        if self.source == MissionSource.SYNTHESIS:
            # Its instruction is the office's brief to the model, not anyone's words.
            return f"{self.tag} {self.get_source_display()}"
        return f"{self.tag} {self.instruction[:60]}"

    @property
    def tag(self) -> str:
        """The mission as a person names it: "#2", "#1a"."""
        return f"#{self.label}"

    @property
    def instruction_is_generated(self) -> bool:
        """The instruction is the office's brief (a synthesis, a delegated part the chief
        of staff wrote), not the person's words."""
        return self.instruction_author == InstructionAuthor.OFFICE


class MissionAttempt(models.Model):
    """An earlier answer of a mission the person regenerated: its reply, how it ended and
    what it cost, as they were before the new attempt."""

    mission = models.ForeignKey(Mission, on_delete=models.CASCADE, related_name="earlier_attempts")
    number = models.PositiveIntegerField()
    reply = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=MissionStatus.choices)
    finished_at = models.DateTimeField(null=True, blank=True)
    prompt_chars = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveIntegerField(default=0)
    cached_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = _("earlier attempt")
        verbose_name_plural = _("earlier attempts")
        ordering = ["mission", "number"]
        constraints = [
            models.UniqueConstraint(fields=["mission", "number"], name="attempt_number_unique"),
        ]

    def __str__(self) -> str:
        return f"#{self.mission_id} attempt {self.number}"


class MessageKind(models.TextChoices):
    USER = "user", _("Instruction")
    EMPLOYEE = "employee", _("Reply")
    NOTICE = "notice", _("System notice")
    ERROR = "error", _("Error")
    EVENT = "event", _("Event")


class Message(models.Model):
    """The timeline a person sees in a channel."""

    channel = models.ForeignKey(
        "office.Channel",
        on_delete=models.CASCADE,
        related_name="messages",
        verbose_name=_("channel"),
    )
    session = models.ForeignKey(
        "chat_sessions.ChatSession",
        on_delete=models.CASCADE,
        related_name="messages",
        verbose_name=_("session"),
    )
    mission = models.ForeignKey(
        Mission,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="messages",
        verbose_name=_("mission"),
    )
    kind = models.CharField(_("kind"), max_length=10, choices=MessageKind.choices)
    author = models.ForeignKey(
        "office.Employee",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="messages",
        verbose_name=_("author"),
    )
    # The person who wrote an instruction (kind "user"), shown by their name in an office
    # of several people; None for the office's own messages and older instructions.
    sender = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("sender"),
    )
    # What a person or an employee wrote; blank for what the office says (office_text).
    text = models.TextField(_("text"), blank=True)
    # What the office says, as data rendered in the reader's language (missions.texts):
    # {"kind": …, its parameters}; empty for a person's or an employee's message.
    office_text = models.JSONField(
        _("office text"),
        default=dict,
        blank=True,
        help_text=_("What the office says, stored as data and shown in the reader's language."),
    )
    # Actions and links the client renders (e.g. the notice's "start new session").
    payload = models.JSONField(_("actions and links"), default=dict, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("message")
        verbose_name_plural = _("messages")
        ordering = ["id"]
        indexes = [models.Index(fields=["channel", "id"], name="message_channel_id")]

    def __str__(self) -> str:
        # An office text is rendered by missions.texts (models import only models): here
        # its kind in words is enough to tell it apart.
        return f"{self.get_kind_display()}: {self.text[:60]}"


class ReadMarker(models.Model):
    """How far a person has read a channel: the newest of its messages they were shown.
    What came after it, replies and failures, is the channel's unread count."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    channel = models.ForeignKey("office.Channel", on_delete=models.CASCADE, related_name="+")
    last_message_id = models.PositiveBigIntegerField(default=0)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("read marker")
        verbose_name_plural = _("read markers")
        constraints = [
            models.UniqueConstraint(fields=["user", "channel"], name="read_marker_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} read {self.channel_id} through {self.last_message_id}"


class AttachmentKind(models.TextChoices):
    TEXT = "text", _("Text")
    MARKDOWN = "markdown", _("Markdown")
    CSV = "csv", _("CSV")
    PDF = "pdf", _("PDF")
    IMAGE = "image", _("Image")


class Attachment(models.Model):
    """A file a person gave with an instruction (docs/design.md §4a): its bytes, kept with
    the mission as the person sent them, and its text, extracted in the background. An
    upload belongs to the channel and the person until an instruction takes it
    (`mission` set); it is never taken twice."""

    channel = models.ForeignKey(
        "office.Channel", on_delete=models.CASCADE, related_name="+", verbose_name=_("channel")
    )
    mission = models.ForeignKey(
        Mission,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="attachments",
        verbose_name=_("mission"),
    )
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("uploaded by"),
    )
    name = models.CharField(_("file name"), max_length=255)
    kind = models.CharField(_("kind"), max_length=10, choices=AttachmentKind.choices)
    content_type = models.CharField(_("content type"), max_length=100)
    size = models.PositiveIntegerField(_("size in bytes"))
    sha256 = models.CharField(_("SHA-256"), max_length=64)
    data = models.BinaryField(_("content"))
    text = models.TextField(_("extracted text"), blank=True)
    # When the text was extracted (or found not to be there: an image, a PDF of scans).
    extracted_at = models.DateTimeField(_("text extracted at"), null=True, blank=True)
    extract_error = models.CharField(_("extraction error"), max_length=300, blank=True)
    # The meaning of the text's passages (context.passages.split_passages), one float16
    # row each, by `vector_model`: the mission's prompt finds the parts its instruction
    # asks about in other words. Empty without the meaning layer.
    vectors = models.BinaryField(_("passage vectors"), blank=True, default=b"")
    vector_model = models.CharField(_("vector model"), max_length=40, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("attachment")
        verbose_name_plural = _("attachments")
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name
