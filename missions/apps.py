from django.apps import AppConfig


class MissionsConfig(AppConfig):
    name = "missions"
