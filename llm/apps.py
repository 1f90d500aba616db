from django.apps import AppConfig


class LlmConfig(AppConfig):
    name = "llm"
    verbose_name = "Model gateway"
