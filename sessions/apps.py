from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ChatSessionsConfig(AppConfig):
    name = "sessions"
    # Django's own session framework owns the label "sessions".
    label = "chat_sessions"
    verbose_name = _("Chat sessions")
