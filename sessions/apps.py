from django.apps import AppConfig


class ChatSessionsConfig(AppConfig):
    name = "sessions"
    # Django's own session framework owns the label "sessions".
    label = "chat_sessions"
    verbose_name = "Chat sessions"
